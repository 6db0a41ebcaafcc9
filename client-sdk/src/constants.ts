/** Version of this library. */
export const VERSION = '0.4.0';
