export * from './cot.js';
export * from './header.js';
export * from './time.js';
export * from './types.js';
export * from './codec.js';
