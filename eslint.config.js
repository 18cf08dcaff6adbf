// Lint runs in `npm test`. Type-aware rules are left out on purpose: `tsc --noEmit` already runs there,
// and a second type-checked pass would double the time on a 2-core machine.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { floorsPlugin } from './lint/floors.js';

export default tseslint.config(
  { ignores: ['node_modules/**', '.data/**', '.infra/**', '.scratch/**', '.bench-compare/**', 'dist/**', 'bench/results/**', 'portal/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    // The portal runs in the browser. typescript-eslint turns off no-undef for TypeScript (tsc checks names
    // against portal/tsconfig.json's DOM lib), so these globals matter only to rules that read them.
    files: ['portal/**/*.{ts,tsx}'],
    languageOptions: {
      globals: { window: 'readonly', document: 'readonly', localStorage: 'readonly', fetch: 'readonly', performance: 'readonly', navigator: 'readonly', requestAnimationFrame: 'readonly', ResizeObserver: 'readonly' },
    },
    // Leaflet reads a string as HTML: tooltips and popups take an element built from text (map/text-content.ts,
    // views/map.tsx popupHtml), never a string, and nothing writes innerHTML (docs/decisions.md#hostile-callers).
    rules: {
      'no-restricted-syntax': ['error',
        { selector: "CallExpression[callee.property.name=/^(bindTooltip|bindPopup|setContent|setTooltipContent|setPopupContent)$/][arguments.0.type!='CallExpression']", message: 'Leaflet takes a string as HTML: pass textContent(text) (portal/src/map/text-content.ts) or a built element.' },
        { selector: "AssignmentExpression[left.property.name=/^(innerHTML|outerHTML)$/]", message: 'Set textContent or build elements; innerHTML would run markup from imported names.' },
        { selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']", message: 'Render text; markup from imported names must never become HTML.' },
      ],
    },
  },
  {
    // dnp3/ is the protocol and its data feed; HTTP routes that show DNP3 data live in api/dnp3/. Imports run
    // downward only, so dnp3/ never reaches into the API or the web framework.
    files: ['dnp3/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['**/api/*', '**/api/**'], message: 'dnp3/ must not import api/: put HTTP routes in api/dnp3/.' },
        { group: ['hono', 'hono/*', '@hono/*'], message: 'dnp3/ stays free of HTTP: put routes in api/dnp3/.' },
      ] }],
    },
  },
  {
    // Floors (lint/floors.js, docs/architecture.md#floors): every import runs downward.
    files: ['**/*.{ts,tsx}'],
    plugins: { floors: floorsPlugin },
    rules: { 'floors/downward-only': 'error' },
  },
  {
    files: ['**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
