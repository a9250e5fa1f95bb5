// The "Rules" link of the lobby, the game page and the tutorial: it opens the rules in a
// dialog (rules-dialog.js); opened in a new tab it is the /rules page in the page's
// language. The lobby's "Tutorial" link gets its words here too.

import { T, lang, onLangChange, addStrings } from "./i18n.js";
import { openRule } from "./rules-dialog.js";

addStrings({
  en: { tutorialLink: "Tutorial", tutorialWhy: "Learn the game: a guided first game with the rulebook's examples" },
  de: { tutorialLink: "Tutorial", tutorialWhy: "Das Spiel lernen: eine geführte erste Partie mit den Beispielen der Spielanleitung" },
});

const link = document.getElementById("rules-link");
const tutorial = document.getElementById("tutorial-link");
function update() {
  if (link) {
    link.textContent = T("rules");
    link.href = "/rules?lang=" + lang();
    link.hreflang = lang();
  }
  if (tutorial) {
    tutorial.textContent = T("tutorialLink");
    tutorial.title = T("tutorialWhy");
  }
}
if (link) {
  link.addEventListener("click", (ev) => {
    if (ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    ev.preventDefault();
    openRule(null);
  });
}
update();
onLangChange(update);
