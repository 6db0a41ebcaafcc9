/** Parameter names of a uWS path pattern, in order: `/v1/agents/:agentId` → `['agentId']`. */
export function paramNames(pattern: string): string[] {
  return pattern
    .split('/')
    .filter((segment) => segment.startsWith(':'))
    .map((segment) => segment.slice(1));
}

/**
 * A regular expression matching the paths a uWS pattern mounts (an optional trailing slash
 * included), so an unmatched request can be told which methods its path allows.
 */
export function patternRegex(pattern: string): RegExp {
  const source = pattern
    .split('/')
    .map((segment) =>
      segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return new RegExp(`^${source}/?$`);
}
