"""The rules core: board data, moves, state, scoring, views, records (R1-R14).

Pure: no I/O beyond reading board files, no printing, imports nothing else of the
package. Everything else (bots, research, clients, the command line) leans on it.
"""
