// ESLint (flat config) with typescript-eslint; Prettier owns formatting (npm run lint runs both).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.build/', 'coverage/', '.tap/', 'bench/results/', 'reports/', '.stryker-tmp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // Unused names fail the build, except the `_` convention for a parameter a signature needs.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Functions short enough to hold in mind. The sandbox game is exempt: its simulation passes stay
    // whole on purpose (one loop over the actors a pass). 'warn' while the last long ones are split.
    files: ['src/**/*.ts'],
    ignores: ['src/game/**'],
    rules: {
      'max-lines-per-function': ['warn', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['test/**', 'bench/**'],
    rules: {
      // Tests read loosely typed JSON answers.
      '@typescript-eslint/no-explicit-any': 'off',
      // `declare namespace Tap { type Test = ... }` names tap's types without importing them.
      '@typescript-eslint/no-namespace': 'off',
    },
  },
  {
    files: ['src/view/assets/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
