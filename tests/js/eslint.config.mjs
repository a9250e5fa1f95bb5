// ESLint over the browser's JavaScript (kardinal/clients/web/static/*.js: ES modules the
// browser loads as they are): the recommended rules, the browser's globals. `make jslint`
// runs it from the repository's root, where the paths below start:
// tests/js/node_modules/.bin/eslint -c tests/js/eslint.config.mjs kardinal/clients/web/static
import js from "@eslint/js";
import globals from "globals";

export default [
  {
    files: ["kardinal/clients/web/static/*.js"],
    ...js.configs.recommended,
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser } },
    rules: {
      ...js.configs.recommended.rules,
      // a caught error left unread is named on purpose: `catch (e) { /* why it is ignored */ }`
      "no-unused-vars": ["error", { caughtErrors: "none" }],
    },
  },
  {
    // the service worker's scripts (sw.js, sw-push.js): classic scripts with a worker's globals
    files: ["kardinal/clients/web/static/sw.js", "kardinal/clients/web/static/sw-push.js"],
    languageOptions: { sourceType: "script", globals: { ...globals.serviceworker } },
  },
];
