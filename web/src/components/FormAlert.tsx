/** A form-level message: an error (announced at once) or a confirmation (announced politely). */
export function FormAlert({ message }: { message: string | null }) {
  if (message === null) return null;
  return (
    <div role="alert" className="alert alert-error">
      {message}
    </div>
  );
}

export function FormNotice({ message }: { message: string | null }) {
  return (
    <div role="status" className={message === null ? undefined : 'alert alert-ok'}>
      {message}
    </div>
  );
}
