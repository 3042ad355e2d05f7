import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

// Workflow and domain code must stay deterministic and free of I/O: no Node built-ins, no ORM,
// no database layer, no activity implementations (types only, through `import type`).
const deterministicImports = {
  'no-restricted-imports': [
    'error',
    {
      paths: nodeBuiltins.map((name) => ({ name, message: 'Workflow and domain code use no Node built-ins.' })),
      patterns: [
        { group: ['@mikro-orm/*'], message: 'Workflow and domain code do not touch the database.' },
        { group: ['**/db/*', '**/db'], message: 'Workflow and domain code do not touch the database.' },
        { group: ['express'], message: 'Workflow and domain code know nothing of HTTP.' },
        { group: ['@temporalio/worker', '@temporalio/client'], message: 'Not inside workflow or domain code.' },
      ],
    },
  ],
  'no-restricted-globals': [
    'error',
    { name: 'setTimeout', message: 'Use workflow sleep().' },
    { name: 'setInterval', message: 'Use workflow sleep().' },
    { name: 'process', message: 'No process state in deterministic code.' },
  ],
};

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.tools/',
      '.data/',
      'dist/',
      'coverage/',
      'db/migrations/.snapshot-*.json',
      // The channel kit's build output, and its types generated from the description.
      'clients/*/dist/',
      'clients/*/src/generated/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', 'scripts/*.cjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/only-throw-error': 'off',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
    },
  },
  {
    files: ['workflows/**/*.ts', 'domain/**/*.ts'],
    ignores: ['workflows/worker*.ts', 'workflows/bundle*.ts'],
    rules: deterministicImports,
  },
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
  // The Node preflight runs on any old node: CommonJS, no types.
  {
    files: ['**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', process: 'readonly' },
    },
    rules: { ...tseslint.configs.disableTypeChecked.rules, '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Tests read JSON bodies of any shape and assert on them.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
