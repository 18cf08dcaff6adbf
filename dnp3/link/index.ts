export * from './crc.js';
export * from './frame.js';
export * from './parser.js';
export * from './secondary.js';
