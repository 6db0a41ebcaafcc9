/** The api's `end_reason` of a LiveKit close reason. */
export function endReason(reason: string): string {
  if (/participant_disconnected/i.test(reason)) return 'user_left';
  if (/max_duration/i.test(reason)) return 'max_duration';
  if (/error/i.test(reason)) return 'agent_error';
  return reason.toLowerCase() || 'ended';
}
