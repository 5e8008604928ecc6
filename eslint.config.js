// ESLint for the pages' JavaScript (static/js): plain ES modules run by the browser as they are.
// `make lint-js` (needs Node.js: npm ci installs ESLint from package-lock.json).
import js from "@eslint/js";
import globals from "globals";

export default [
  {
    files: ["static/js/**/*.js"],
    ...js.configs.recommended,
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser },
    },
  },
  {
    files: ["eslint.config.js"],
    ...js.configs.recommended,
    languageOptions: { sourceType: "module", globals: { ...globals.node } },
  },
];
