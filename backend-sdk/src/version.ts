/** Version of this library. @example `console.log(VERSION)` */
export const VERSION = '0.4.0';
