export * from './messages.ts';
export * from './common.ts';
export * from './settings.ts';
export * from './auth.ts';
export * from './plans.ts';
export * from './validity.ts';
export * from './agent.ts';
