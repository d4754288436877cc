/**
 * Runs a manager write: busy flag, the server's Spanish message as an error toast, a success toast, and the
 * answer's `fields` (a 422 names the inputs it refused) kept so each form shows them under its inputs.
 */
import { useCallback, useState } from 'react';
import { ApiError, errorMessage } from '../../../lib/api';
import { toast } from '../../../lib/toasts';

export type FieldErrors = Record<string, string>;

export type Act = <T>(run: () => Promise<T>, success?: string) => Promise<T | undefined>;

export function useAction(): [boolean, Act, FieldErrors, (field?: string) => void] {
  const [busy, setBusy] = useState(false);
  const [fields, setFields] = useState<FieldErrors>({});
  const act = useCallback<Act>(async (run, success) => {
    setBusy(true);
    setFields({});
    try {
      const result = await run();
      if (success) toast.success(success);
      return result;
    } catch (error) {
      toast.error(errorMessage(error, 'Hubo un error al realizar la operación.'));
      if (error instanceof ApiError && error.fields) setFields(error.fields);
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  // Editing an input clears its error (the server's word applied to the value it was given); no field: all.
  const clear = useCallback((field?: string) => {
    setFields((current) => {
      if (field === undefined) return Object.keys(current).length ? {} : current;
      if (!(field in current)) return current;
      const { [field]: _gone, ...rest } = current;
      return rest;
    });
  }, []);
  return [busy, act, fields, clear];
}
