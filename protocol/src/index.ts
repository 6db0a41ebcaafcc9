// The shared protocol: everything that crosses a process or package boundary. It imports
// nothing of the service, so the SDK builds can ship it inside their packages.
export * from './application.ts';
export * from './errors.ts';
export * from './livekit.ts';
export * from './streams.ts';
