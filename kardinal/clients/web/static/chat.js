// The game's chat: stored with the game, read by everyone at the table (and by
// spectators), written by the players (and by spectators if the players allow it).

export class Chat {
  constructor(page, box) {
    this.page = page;
    this.box = box;
  }

  render() {}
}
