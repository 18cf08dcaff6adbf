// Types of lint/floors.js (plain JavaScript, as eslint.config.js loads it without a TypeScript loader).
import type { ESLint } from 'eslint';

export const FLOORS: readonly (readonly string[])[];
export function upwardProblem(from: string, to: string): string | null;
export const INNER_FLOORS: Readonly<Record<string, readonly (readonly string[])[]>>;
export function innerProblem(folder: string, from: string, to: string): string | null;
export const floorsPlugin: ESLint.Plugin;
export const PENDING_CIRCLES: Readonly<Record<string, readonly string[]>>;
export function roomGraph(dir: string, skipped?: readonly string[]): Map<string, Set<string>>;
export function circleProblem(dir: string, from: string, to: string, graph?: Map<string, Set<string>>, pending?: readonly string[]): string | null;
