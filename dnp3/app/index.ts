export * from './header.js';
export * from './object-header.js';
