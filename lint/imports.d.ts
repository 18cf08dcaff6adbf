// Types of lint/imports.js (plain JavaScript, as eslint.config.js loads it without a TypeScript loader).
export const ROOT: string;
export const NOT_PRODUCTION: ReadonlySet<string>;
export function productionFiles(dir?: string): string[];
export function importsIn(file: string, source: string): string[];
export function resolveFrom(file: string, spec: string): string;
export function importsOf(file: string): string[];
