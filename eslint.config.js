// Type-aware linting (STYLE.md): floating and misused promises, strict equality.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'data/',
      'coverage/',
      'eslint.config.js',
      '.dependency-cruiser.cjs',
      'scripts/',
      'bin/',
      'web/vite.config.js',
      // Generated from openapi/operator.json by `npm run openapi:web` (build:web, typecheck); not committed.
      'web/src/api/operator-api.generated.ts',
    ],
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's describe/it return promises the runner itself awaits.
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/no-extraneous-class': 'off',
      // Path aliases over `../` (STYLE.md): `#src/*`, `#test/*` (tsconfig.json), `#web/*` (web/tsconfig.json).
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '(^|/)\\.\\./', message: 'Import by alias (#src/…, #test/…, #web/…), not by a ../ path.' }] },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      // Specs build async iterables from plain data on purpose.
      '@typescript-eslint/require-await': 'off',
    },
  },
);
