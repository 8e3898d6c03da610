import { useId, useRef, useState, type ReactNode } from 'react';
import { ErrorText } from './feedback';

/**
 * A button whose action is asked for again in a modal dialog (native `<dialog>`: focus stays
 * inside, Escape closes it). A failure is shown in the dialog, next to the buttons.
 */
export function ConfirmButton({
  label,
  title,
  children,
  confirmLabel,
  danger = false,
  onConfirm,
}: {
  label: string;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => Promise<unknown>;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const id = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await onConfirm();
      dialog.current?.close();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <button type="button" className={danger ? 'danger-outline' : undefined} onClick={() => dialog.current?.showModal()}>
        {label}
      </button>
      <dialog ref={dialog} aria-labelledby={`${id}-title`} onClose={() => setError(undefined)}>
        <h2 id={`${id}-title`}>{title}</h2>
        <div>{children}</div>
        <ErrorText error={error} />
        <div className="actions">
          <button type="button" className={danger ? 'danger' : undefined} disabled={busy} onClick={() => void confirm()}>
            {busy ? 'Working…' : confirmLabel}
          </button>
          <button type="button" className="secondary" onClick={() => dialog.current?.close()}>
            Keep as it is
          </button>
        </div>
      </dialog>
    </>
  );
}
