export * from './events.js';
export * from './webhooks.js';
