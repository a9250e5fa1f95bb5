"""The web edge and the process: the app that puts the domains together (app.py:
``create_app``), every request's edge (http.py: the size limit, the security headers,
the access log, the client's address, refusals in the API's format; origin.py: forged
cross-site requests), the HTML pages (pages.py), the rules page (rules_page.py), the map
for the browser (mapdata.py, mapraster.py), and the server process's logs and garbage
collection (logs.py, gcpolicy.py).

Only app.py imports the domains (their routers and services, to wire them); the rest of
web is imported by the domains' routes and imports of them only play's chat limit (http.py
names the longest chat line in its refusal).
"""
