// ESLint for the web client (`npm run lint`, and `make lint` at the top): typescript-eslint's recommended rules and
// React's rules of hooks. typescript-eslint parses with the `typescript` package (5.9, for its JavaScript API); the
// compiler that checks and builds is TypeScript 7 (`typescript-7`, package.json scripts).
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  // Built files, and the API types generated from the OpenAPI document (`make types`).
  { ignores: ['dist/', 'src/api/schema.d.ts'] },
  {
    files: ['**/*.{js,mjs,cjs,ts,tsx}'],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    languageOptions: { globals: globals.browser },
    rules: {
      // `_name` marks what is left out on purpose (e.g. a field dropped from a copy).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  // The React client. Not e2e/: it drives a browser from Node.js, and its `useBrowser` / `useSwitches` are test
  // fixtures, not React hooks.
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  // Node.js: the browser tests, build scripts and tool configs.
  { files: ['e2e/**', 'scripts/**', '*.config.{js,ts,cjs}'], languageOptions: { globals: globals.node } },
);
