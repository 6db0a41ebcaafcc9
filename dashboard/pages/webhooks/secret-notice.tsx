import { Notice } from '../../components.tsx';

/** A signing secret just made (an endpoint added, or its secret rotated): shown this once. */
export interface ShownSecret {
  url: string;
  secret: string;
  rotated: boolean;
}

/** The banner holding a new signing secret, with Copy and the warning it is not shown again. */
export function SecretNotice(props: { shown: ShownSecret; onDismiss: () => void }) {
  const { shown } = props;
  return (
    <Notice kind="warning" onDismiss={props.onDismiss}>
      <strong>
        {shown.rotated ? 'New signing secret' : 'Endpoint added'} for {shown.url}.
      </strong>{' '}
      Copy the signing secret now: it will not be shown again. Receivers check each delivery’s{' '}
      <code>webhook-signature</code> header with it.
      <div className="webhook-secret">
        <code className="secret" data-testid="webhook-secret">
          {shown.secret}
        </code>
        <button
          type="button"
          onClick={() => void navigator.clipboard?.writeText(shown.secret).catch(() => {})}
        >
          Copy
        </button>
      </div>
    </Notice>
  );
}
