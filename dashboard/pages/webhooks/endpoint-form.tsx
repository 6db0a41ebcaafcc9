import { type FormEvent, useState } from 'react';
import type { WebhookEndpoint, WebhookEventType } from './webhook-types.ts';

/** What the form submits: the body of a create, or of an edit's PATCH. */
export interface EndpointFields {
  url: string;
  description: string;
  events: WebhookEventType[];
}

/**
 * An endpoint's URL, description and the event types it receives: empty to add one,
 * filled with `endpoint` to edit it.
 */
export function EndpointForm(props: {
  title: string;
  submitLabel: string;
  eventTypes: readonly WebhookEventType[];
  endpoint?: WebhookEndpoint;
  busy: boolean;
  onSubmit: (fields: EndpointFields) => void;
  onCancel: () => void;
}) {
  const [url, setUrl] = useState(props.endpoint?.url ?? '');
  const [description, setDescription] = useState(props.endpoint?.description ?? '');
  const [events, setEvents] = useState<WebhookEventType[]>(props.endpoint?.events ?? []);

  const toggle = (type: WebhookEventType, on: boolean) =>
    setEvents((chosen) =>
      // Kept in the service's order, whatever order they were ticked in.
      props.eventTypes.filter((t) => (t === type ? on : chosen.includes(t))),
    );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onSubmit({ url: url.trim(), description: description.trim(), events });
  };

  return (
    <form className="card form-grid webhook-form" aria-label={props.title} onSubmit={submit}>
      <h2>{props.title}</h2>
      <label>
        Endpoint URL
        <input
          name="url"
          type="url"
          required
          maxLength={2048}
          placeholder="https://example.com/webhooks/awp"
          value={url}
          onChange={(event) => setUrl(event.target.value)}
        />
      </label>
      <label>
        Description
        <input
          name="description"
          maxLength={200}
          value={description}
          onChange={(event) => setDescription(event.target.value)}
        />
      </label>
      <fieldset className="webhook-events">
        <legend>Events</legend>
        {props.eventTypes.map((type) => (
          <label key={type} className="checkbox">
            <input
              type="checkbox"
              checked={events.includes(type)}
              onChange={(event) => toggle(type, event.target.checked)}
            />
            <code>{type}</code>
          </label>
        ))}
      </fieldset>
      <div className="row-actions">
        <button
          type="submit"
          className="primary"
          disabled={props.busy || url.trim() === '' || events.length === 0}
        >
          {props.submitLabel}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
