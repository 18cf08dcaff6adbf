export * from './table.js';
export * from './codec.js';
