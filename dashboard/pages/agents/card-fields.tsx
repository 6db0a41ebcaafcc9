import { useId } from 'react';
import {
  type AgentFormValues,
  type CardListField,
  type CardTextField,
  listEditable,
} from './agent-edits.ts';
import type { CharacterCardData } from './agent-types.ts';

type CardField = CardTextField | CardListField;

/** The card fields the editor shows, in the order of a character's reading. */
const FIELDS: readonly { field: CardField; label: string; rows?: number; hint?: string }[] = [
  { field: 'name', label: 'Name' },
  { field: 'description', label: 'Description', rows: 4, hint: 'The persona.' },
  { field: 'personality', label: 'Personality', rows: 3 },
  { field: 'scenario', label: 'Scenario', rows: 3 },
  { field: 'first_mes', label: 'First message', rows: 3, hint: 'The greeting.' },
  {
    field: 'alternate_greetings',
    label: 'Alternate greetings',
    rows: 3,
    hint: 'One per line.',
  },
  { field: 'system_prompt', label: 'System prompt', rows: 5 },
  { field: 'post_history_instructions', label: 'Post-history instructions', rows: 3 },
  {
    field: 'mes_example',
    label: 'Example messages',
    rows: 4,
    hint: 'mes_example: sample dialogue.',
  },
  { field: 'creator_notes', label: 'Creator notes', rows: 3 },
  { field: 'tags', label: 'Tags', hint: 'Comma separated.' },
];

/**
 * The character card part of the Edit Agent form. A list field whose stored items would not
 * read back from one text (a tag with a comma, a greeting of several lines) is shown but
 * kept as stored.
 */
export function CardFields(props: {
  card: CharacterCardData;
  values: AgentFormValues['card'];
  onChange: (values: AgentFormValues['card']) => void;
}) {
  const idBase = useId();
  return (
    <fieldset className="agent-card">
      <legend>Character card</legend>
      {FIELDS.map(({ field, label, rows, hint }) => {
        const kept =
          (field === 'tags' || field === 'alternate_greetings') &&
          !listEditable(field, props.card[field]);
        const id = `${idBase}-${field}`;
        const control = {
          id,
          name: field,
          value: props.values[field],
          disabled: kept,
          'aria-describedby': hint || kept ? `${id}-hint` : undefined,
          onChange: (event: { target: { value: string } }) =>
            props.onChange({ ...props.values, [field]: event.target.value }),
        };
        return (
          <div key={field} className="agent-field">
            <label htmlFor={id}>{label}</label>
            {rows ? <textarea rows={rows} {...control} /> : <input {...control} />}
            {hint || kept ? (
              <span id={`${id}-hint`} className="muted agent-hint">
                {kept
                  ? 'Kept as stored: an item would not read back from this text. Import a card file to change it.'
                  : hint}
              </span>
            ) : null}
          </div>
        );
      })}
    </fieldset>
  );
}
