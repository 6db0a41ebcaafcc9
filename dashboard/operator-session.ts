import { createContext, useContext } from 'react';
import type { Me, Role } from './types.ts';

/** The signed-in member, for every page. */
export const OperatorSessionContext = createContext<Me | null>(null);

/** The signed-in member (pages render only after sign-in). */
export function useOperatorSession(): Me {
  const me = useContext(OperatorSessionContext);
  if (!me) throw new Error('useOperatorSession outside a signed-in page');
  return me;
}

/** True when the member's role is one of `roles`. */
export function hasRole(me: Me, roles: readonly Role[]): boolean {
  return roles.includes(me.member.role);
}
