/** Runs a manager write: busy flag, the server's Spanish message as an error toast, a success toast. */
import { useCallback, useState } from 'react';
import { errorMessage } from '../../../lib/api';
import { toast } from '../../../lib/toasts';

export function useAction(): [boolean, <T>(run: () => Promise<T>, success?: string) => Promise<T | undefined>] {
  const [busy, setBusy] = useState(false);
  const act = useCallback(async <T,>(run: () => Promise<T>, success?: string): Promise<T | undefined> => {
    setBusy(true);
    try {
      const result = await run();
      if (success) toast.success(success);
      return result;
    } catch (error) {
      toast.error(errorMessage(error, 'Hubo un error al realizar la operación.'));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return [busy, act];
}
