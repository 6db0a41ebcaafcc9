export declare const ROOT: string;
export declare const DIST: string;
/** True when dist/ is missing or a source or config file changed after the last build. */
export declare function buildIsStale(): boolean;
/** Compiles with tsc and copies the runtime assets; returns the milliseconds it took. */
export declare function build(options?: { quiet?: boolean }): number;
/** Builds when needed. */
export declare function ensureBuilt(): void;
