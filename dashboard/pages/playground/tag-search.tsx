import { type KeyboardEvent, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { call } from '../../api.ts';
import type { VoiceTag } from './playground-types.ts';

/** The `[word` being typed just before the caret, if any. */
function openTagAt(text: string, caret: number): { start: number; query: string } | undefined {
  const before = text.slice(0, caret);
  const open = before.lastIndexOf('[');
  if (open < 0 || before.lastIndexOf(']') > open) return undefined;
  const query = before.slice(open + 1);
  if (query.length > 48 || /[\n[\]]/.test(query)) return undefined;
  return { start: open, query };
}

/**
 * The Playground's text box with inline tag search: typing `[` lists the tag vocabulary
 * (`GET /voice-tags?search=`), narrowed by what follows; Enter, Tab or a click inserts the
 * tag as `[tag] `, Escape closes the list.
 */
export function TagTextArea(props: { value: string; onChange: (value: string) => void }) {
  const area = useRef<HTMLTextAreaElement>(null);
  const [open, setOpen] = useState<{ start: number; query: string }>();
  const [tags, setTags] = useState<VoiceTag[]>([]);
  const [active, setActive] = useState(0);
  // Where the caret goes once an inserted tag is in the text box: set when the new value
  // is committed, before the next keystroke is handled (a later frame would move the
  // caret back into what was typed meanwhile).
  const caretAfterInsert = useRef<number | undefined>(undefined);
  useLayoutEffect(() => {
    const position = caretAfterInsert.current;
    if (position === undefined) return;
    caretAfterInsert.current = undefined;
    area.current?.focus();
    area.current?.setSelectionRange(position, position);
  });

  useEffect(() => {
    if (!open) return;
    let current = true;
    call<{ tags: VoiceTag[] }>('GET', `/voice-tags?search=${encodeURIComponent(open.query)}`)
      .then((answer) => {
        if (!current) return;
        setTags(answer.tags);
        setActive(0);
      })
      .catch(() => current && setTags([]));
    return () => {
      current = false;
    };
  }, [open]);

  const update = (value: string, caret: number) => {
    props.onChange(value);
    setOpen(openTagAt(value, caret));
  };

  const insert = (tag: string) => {
    if (!open) return;
    const caret = area.current?.selectionStart ?? props.value.length;
    const rest = props.value.slice(caret).replace(/^[^\s[\]]*\]?/, '');
    const inserted = `[${tag}] `;
    const value = `${props.value.slice(0, open.start)}${inserted}${rest.replace(/^ /, '')}`;
    caretAfterInsert.current = open.start + inserted.length;
    props.onChange(value);
    setOpen(undefined);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (!open || tags.length === 0) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((index) => (index + step + tags.length) % tags.length);
    } else if (event.key === 'Enter' || event.key === 'Tab') {
      event.preventDefault();
      const chosen = tags[active];
      if (chosen) insert(chosen.tag);
    } else if (event.key === 'Escape') {
      setOpen(undefined);
    }
  };

  return (
    <div className="tag-text">
      <textarea
        ref={area}
        aria-label="Text"
        value={props.value}
        rows={6}
        maxLength={5000}
        placeholder="Type the text to speak. Type [ to search tags such as [whispers] or [laughs]."
        onChange={(event) => update(event.target.value, event.target.selectionStart)}
        onKeyDown={onKeyDown}
        onBlur={() => setTimeout(() => setOpen(undefined), 150)}
      />
      {open && tags.length > 0 ? (
        <div className="tag-list" role="listbox" aria-label="Tags">
          {tags.map((tag, index) => (
            <div
              key={tag.tag}
              role="option"
              tabIndex={-1}
              aria-selected={index === active}
              className={index === active ? 'tag-option active' : 'tag-option'}
              onMouseDown={(event) => {
                event.preventDefault();
                insert(tag.tag);
              }}
            >
              <code>[{tag.tag}]</code> <span className="muted">{tag.description}</span>
            </div>
          ))}
        </div>
      ) : null}
    </div>
  );
}
