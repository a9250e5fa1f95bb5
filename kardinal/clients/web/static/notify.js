// "Your turn": the tab's title and icon, an optional sound and an optional browser
// notification when the tab is in the background.

export class TurnSignal {
  constructor(page) {
    this.page = page;
  }

  render() {}
}
