export * from './meta.js';
export * from './constants.js';
export * from './conditions.js';
export * from './cluster.js';
export * from './addon.js';
export * from './core.js';
export * from './feature-gates.js';
export * from './crds.js';
