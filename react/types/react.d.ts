// The few React APIs the bindings use, declared for this package's own build, so it does not
// depend on one version of @types/react: React is a peer dependency. Apps compile against
// their real @types/react (the emitted .d.ts files only import `ReactNode` and `ReactElement`).
declare module 'react' {
  export type ReactNode =
    | ReactElement
    | string
    | number
    | bigint
    | boolean
    | null
    | undefined
    | Iterable<ReactNode>;
  export interface ReactElement {
    type: unknown;
    props: unknown;
    key: string | null;
  }
  export interface Context<T> {
    Provider: unknown;
    readonly __value?: T;
  }
  export function createContext<T>(defaultValue: T): Context<T>;
  export function useContext<T>(context: Context<T>): T;
  export function useState<S>(
    initial: S | (() => S),
  ): [S, (next: S | ((previous: S) => S)) => void];
  export function useEffect(
    effect: () => undefined | (() => void),
    deps?: readonly unknown[],
  ): void;
  export function useMemo<T>(factory: () => T, deps: readonly unknown[]): T;
  export function useCallback<T extends (...args: never[]) => unknown>(
    fn: T,
    deps: readonly unknown[],
  ): T;
  export function createElement(
    type: unknown,
    props: object | null,
    ...children: ReactNode[]
  ): ReactElement;
}
