/**
 * The state every API form shares: busy while its request runs, the API's errors placed on its
 * fields, and focus moved to the first field at fault so the person lands where the fix is.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { type FormErrors, formErrors, NO_ERRORS, type Problem } from '../api/problem';

export function useApiForm(fieldNames: readonly string[]) {
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);

  useEffect(() => {
    if (Object.keys(errors.fields).length === 0) return;
    formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [errors]);

  // The names are a constant of each form: the first ones are kept.
  const names = useRef(fieldNames);
  const fail = useCallback((problem: Problem) => setErrors(formErrors(problem, names.current)), []);
  const clear = useCallback(() => setErrors(NO_ERRORS), []);
  return { errors, setErrors, fail, clear, busy, setBusy, formRef };
}
