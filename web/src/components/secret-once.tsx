import { useId, useRef, useState } from 'react';

/**
 * A secret shown once (a customer key, a device key): the value, a copy button, and a plain
 * warning that it will not be shown again. The operator closes it once the secret is kept.
 */
export function SecretOnce({ title, secret, use, onDone }: { title: string; secret: string; use: string; onDone: () => void }) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<string>();

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      input.current?.select();
      setCopied('Selected: press Ctrl+C (⌘C) to copy it.');
    }
  };

  return (
    <section className="secret" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{title}</h3>
      <p className="warning">
        <strong>You will not see this again.</strong> Copy it now and keep it somewhere safe. {use}
      </p>
      <div className="secret-row">
        <label htmlFor={`${id}-value`} className="visually-hidden">
          {title}
        </label>
        <input id={`${id}-value`} ref={input} className="mono" readOnly value={secret} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      <p role="status" className="muted">
        {copied}
      </p>
      <button type="button" className="secondary" onClick={onDone}>
        I have kept it: close
      </button>
    </section>
  );
}
