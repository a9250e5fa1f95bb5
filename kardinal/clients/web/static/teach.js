// Hints and the post-game review: the bot's view of a position, shown beside the map.
// The game page calls render() after each redraw; page.msg, page.map, page.board hold
// what is shown.

export class Teach {
  constructor(page, box) {
    this.page = page;
    this.box = box;
  }

  render() {}
}
