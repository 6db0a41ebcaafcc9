import { useCallback, useState } from 'react';
import { describeError } from '../../api.ts';

export interface Action {
  busy: boolean;
  error: string | undefined;
  /** Runs one write; on success calls `onDone` and resolves true, else keeps the API's detail. */
  run: (write: () => Promise<unknown>) => Promise<boolean>;
  clearError: () => void;
}

/** A write to the operator API with its busy flag and the failure's detail for a Notice. */
export function useAction(onDone: () => void): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = useCallback(
    async (write: () => Promise<unknown>) => {
      setBusy(true);
      setError(undefined);
      try {
        await write();
        onDone();
        return true;
      } catch (caught) {
        setError(describeError(caught));
        return false;
      } finally {
        setBusy(false);
      }
    },
    [onDone],
  );
  const clearError = useCallback(() => setError(undefined), []);
  return { busy, error, run, clearError };
}

/** `/voices/ID` with the id escaped, followed by `rest`. */
export function voicePath(voiceId: string, rest = ''): string {
  return `/voices/${encodeURIComponent(voiceId)}${rest}`;
}
