import { useId, useState } from 'react';
import { describedBy, FieldError } from '#web/components/field-error';
import { macsFromText } from '#web/macs';

/** Macs typed or pasted, and a CSV file's, together. */
export interface MacsDraft {
  text: string;
  file: File | undefined;
}

export const EMPTY_MACS: MacsDraft = { text: '', file: undefined };

/** Every mac of a draft: the pasted ones, then the file's. */
export async function draftMacs(draft: MacsDraft): Promise<string[]> {
  return [...macsFromText(draft.text), ...(draft.file ? macsFromText(await draft.file.text()) : [])];
}

/**
 * A text area to paste device identifiers (macs, controller ids) into and a CSV file to take them from
 * (first column, header optional).
 * @param problem what is wrong with them (the API's refusal of one), shown under the text area.
 */
export function MacsInput({
  legend,
  draft,
  onChange,
  problem,
}: {
  legend: string;
  draft: MacsDraft;
  onChange: (draft: MacsDraft) => void;
  problem?: string;
}) {
  const id = useId();
  const [fileKey, setFileKey] = useState(0);
  return (
    <fieldset className="macs">
      <legend>{legend}</legend>
      <div className="field">
        <label htmlFor={`${id}-text`}>Paste macs or controller ids (one per line, or separated by spaces)</label>
        <textarea
          id={`${id}-text`}
          rows={4}
          className="mono"
          value={draft.text}
          placeholder={'AC:67:B2:01:02:03\nac-67-b2-01-02-04'}
          onChange={(e) => onChange({ ...draft, text: e.target.value })}
          {...describedBy(`${id}-error`, problem)}
        />
        <FieldError id={`${id}-error`} message={problem} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-file`}>or a CSV file (macs or controller ids in the first column)</label>
        <input
          key={fileKey}
          id={`${id}-file`}
          type="file"
          accept=".csv,.txt,text/csv,text/plain"
          onChange={(e) => onChange({ ...draft, file: e.target.files?.[0] })}
        />
        {draft.file ? (
          <button
            type="button"
            className="link"
            onClick={() => {
              setFileKey(fileKey + 1);
              onChange({ ...draft, file: undefined });
            }}
          >
            Forget {draft.file.name}
          </button>
        ) : null}
      </div>
    </fieldset>
  );
}
