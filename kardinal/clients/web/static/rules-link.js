// The "Rules" link of the lobby, the game page and the tutorial: it opens the rules in a
// dialog (rules-dialog.js); opened in a new tab it is the /rules page in the page's
// language. The "Tutorial", "My games" and "Help" (the documentation, on the pages without
// an About dialog) links get their words here too.

import { T, lang, onLangChange, addStrings } from "./i18n.js";
import { openRule } from "./rules-dialog.js";
import { url } from "./net.js";

addStrings({
  en: { tutorialLink: "Tutorial", tutorialWhy: "Learn the game: a guided first game with the rulebook's examples", myGames: "My games", myGamesWhy: "The games this browser holds a seat in, and whose turn it is", helpLink: "Help", helpWhy: "How to play here, how to host a server, and how it is made" },
  de: { tutorialLink: "Tutorial", tutorialWhy: "Das Spiel lernen: eine geführte erste Partie mit den Beispielen der Spielanleitung", myGames: "Meine Spiele", myGamesWhy: "Die Spiele, in denen dieser Browser einen Platz hat, und wer dran ist", helpLink: "Hilfe", helpWhy: "Wie man hier spielt, wie man einen Server betreibt und wie er gebaut ist (auf Englisch)" },
  da: { tutorialLink: "Vejledning", tutorialWhy: "Lær spillet: et guidet første spil med regelhæftets eksempler", myGames: "Mine spil", myGamesWhy: "De spil, hvor denne browser har en plads, og hvis tur det er", helpLink: "Hjælp", helpWhy: "Sådan spiller du her, sådan driver du en server, og sådan er den lavet (på engelsk)" },
});

const link = document.getElementById("rules-link");
const tutorial = document.getElementById("tutorial-link");
const mine = document.getElementById("mine-link");
const help = document.getElementById("docs-link");
// the game page's "Rules: as written" / "Variant: …" label: it opens the rules at R14 (the variants)
const info = document.getElementById("rules-info");
function update() {
  if (link) {
    link.textContent = T("rules");
    link.setAttribute("href", url("/rules?lang=" + lang()));
    link.setAttribute("hreflang", lang());
  }
  if (tutorial) {
    tutorial.textContent = T("tutorialLink");
    tutorial.title = T("tutorialWhy");
  }
  if (info) info.setAttribute("href", url(`/rules?lang=${lang()}#R14`));
  if (mine) {
    mine.textContent = T("myGames");
    mine.title = T("myGamesWhy");
  }
  if (help) {
    help.textContent = T("helpLink");
    help.title = T("helpWhy");
    help.setAttribute("href", url("/docs/"));
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
