// ESLint 9 flat config: @eslint/js + typescript-eslint `recommended` (the syntactic set, not the
// strict/type-checked ones) plus ONE type-aware rule, switch-exhaustiveness-check, and
// eslint-config-prettier last so no rule fights Prettier (.prettierrc.json) over layout.
// `npm run lint` = `eslint .`; `npm run format` / `format:check` run Prettier.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    // Generated, vendored or downloaded files (node_modules/ is always ignored).
    ignores: [
      '**/dist/',
      'coverage/',
      '.nx/',
      '.memotrace/',
      '.tmp/',
      '.cache/', // the OpenSearch node's Maven cache and build output
      'infra/kafka/lib/', // the Kafka broker's jars (infra/kafka/broker.sh)
      'infra/opensearch/target/',
    ],
  },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },

  js.configs.recommended,
  tseslint.configs.recommended,

  {
    files: ['**/*.ts'],
    languageOptions: {
      // One TypeScript program for the whole tree (tsconfig.base.json includes every .ts file),
      // as `npm run typecheck` builds it: the cheapest way to get type information.
      parserOptions: { project: './tsconfig.base.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // The one type-aware rule: a switch over a union must name every member; a `default:`
      // does not stand in for a missing case (a new command/event kind must be handled
      // explicitly). A switch over a non-union (string, number) needs no default.
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: false, allowDefaultCaseForExhaustiveSwitch: true },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // Under noUncheckedIndexedAccess the code asserts indexes it has just checked (`rows[0]!`).
      '@typescript-eslint/no-non-null-assertion': 'off',
      // `const self = this` is how an async generator method (no arrow form) reaches its object.
      '@typescript-eslint/no-this-alias': ['error', { allowedNames: ['self'] }],
      // js-tiktoken's typings resolve to its ESM build under module node16; its CommonJS build is
      // loaded with require on purpose (services/query/src/search/cl100k.ts).
      '@typescript-eslint/no-require-imports': ['error', { allow: ['^js-tiktoken/'] }],
    },
  },
  {
    // Tests and their helpers read untyped HTTP/JSON/Kafka payloads as `any`; production code may not.
    files: ['**/*.spec.ts', '**/testing/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },

  {
    // The few plain-JavaScript files: worker entry points and jest's config, CommonJS on Node.
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: globals.node },
  },

  // Last: turns off every rule that would conflict with Prettier's output.
  prettier,

  {
    // After eslint-config-prettier (which turns max-len off): Prettier breaks code at 150 columns
    // (.prettierrc.json printWidth) but cannot break a long string, template literal or comment;
    // this names the lines it leaves over 150 so they are split by hand.
    rules: { 'max-len': ['error', { code: 150, tabWidth: 2, ignoreUrls: true }] },
  },
);
