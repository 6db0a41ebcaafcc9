import { type FormEvent, useState } from 'react';
import { call, describeError } from '../api.ts';
import { formatTime, Notice, Page, useLoad } from '../components.tsx';
import { hasRole, useOperatorSession } from '../operator-session.ts';
import { type ApiKey, MEMBER_MANAGER_ROLES, type Me, ROLES, type Role } from '../types.ts';
import './members.css';

/** A member as `GET /operator/api/members` lists them. */
interface WorkspaceMember {
  user_id: string;
  email: string;
  role: Role;
  added_at: string;
  can_sign_in: boolean;
}

const ROLE_LABELS: Record<Role, string> = {
  owner: 'Owner',
  admin: 'Admin',
  builder: 'Builder',
  member: 'Member',
};
const RANK: Record<Role, number> = { owner: 3, admin: 2, builder: 1, member: 0 };

/** What the server allows (src/workspaces/member-admin.ts): an Owner everything, others below. */
function mayActOn(me: Me, role: Role): boolean {
  return me.member.role === 'owner' || RANK[role] < RANK[me.member.role];
}

/**
 * Members (Config › Members): who is in the workspace and their roles. Owners and Admins
 * add members by email (a new user's generated password is shown once, to be handed
 * over), change roles, reset passwords and remove members; an Admin only below Admin.
 */
export function MembersPage() {
  const me = useOperatorSession();
  const canManage = hasRole(me, MEMBER_MANAGER_ROLES);
  const members = useLoad(() =>
    call<{ members: WorkspaceMember[] }>('GET', '/members').then((r) => r.members),
  );
  const [issued, setIssued] = useState<{ email: string; password: string; reset: boolean }>();
  const [message, setMessage] = useState<string>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState<string>();

  /** Runs one change; true when it succeeded (the list is then read again). */
  const act = async (key: string, run: () => Promise<void>): Promise<boolean> => {
    setBusy(key);
    setError(undefined);
    setMessage(undefined);
    try {
      await run();
      members.reload();
      return true;
    } catch (caught) {
      setError(describeError(caught));
      return false;
    } finally {
      setBusy(undefined);
    }
  };
  const path = (member: WorkspaceMember) => `/members/${encodeURIComponent(member.user_id)}`;

  return (
    <Page title="Members">
      <p className="muted">
        Everyone who signs in to this workspace’s dashboard, and what their role lets them do:
        Owners and Admins manage voices and members, Builders manage keys and Agents, Members browse
        and use the Playground.
      </p>
      {canManage ? (
        <AddMemberForm
          me={me}
          busy={busy === 'add'}
          onAdd={(email, role) =>
            act('add', async () => {
              const answer = await call<{ member: WorkspaceMember; password: string }>(
                'POST',
                '/members',
                { email, role },
              );
              setIssued({ email: answer.member.email, password: answer.password, reset: false });
            })
          }
        />
      ) : (
        <Notice kind="info">Adding and managing members requires an Owner or Admin.</Notice>
      )}
      {issued ? (
        <Notice kind="success" onDismiss={() => setIssued(undefined)}>
          <strong>
            {issued.reset ? `New password for ${issued.email}.` : `${issued.email} added.`}
          </strong>{' '}
          Give them this password to sign in; it is not shown again.
          <code className="secret" data-testid="member-password">
            {issued.password}
          </code>
          <button
            type="button"
            onClick={() => void navigator.clipboard?.writeText(issued.password).catch(() => {})}
          >
            Copy
          </button>
        </Notice>
      ) : null}
      {message ? (
        <Notice kind="success" onDismiss={() => setMessage(undefined)}>
          {message}
        </Notice>
      ) : null}
      {error ? <Notice kind="error">{error}</Notice> : null}
      {members.error ? <Notice kind="error">{members.error}</Notice> : null}
      <table className="members-table">
        <thead>
          <tr>
            <th>Email</th>
            <th>Role</th>
            <th>Added</th>
            <th>Sign-in</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(members.data ?? []).map((member) => {
            const manageable = canManage && mayActOn(me, member.role);
            const self = member.user_id === me.member.user_id;
            return (
              <tr key={member.user_id} data-email={member.email}>
                <td>
                  {member.email}
                  {self ? <span className="muted"> (you)</span> : null}
                </td>
                <td>
                  {manageable ? (
                    <select
                      aria-label={`Role of ${member.email}`}
                      value={member.role}
                      disabled={busy !== undefined}
                      onChange={(event) => {
                        const role = event.target.value as Role;
                        void act(`role:${member.user_id}`, async () => {
                          await call('PATCH', path(member), { role });
                          setMessage(`${member.email} is now ${ROLE_LABELS[role]}.`);
                        });
                      }}
                    >
                      {ROLES.filter((role) => role === member.role || mayActOn(me, role)).map(
                        (role) => (
                          <option key={role} value={role}>
                            {ROLE_LABELS[role]}
                          </option>
                        ),
                      )}
                    </select>
                  ) : (
                    ROLE_LABELS[member.role]
                  )}
                </td>
                <td>{formatTime(member.added_at)}</td>
                <td>{member.can_sign_in ? 'Ready' : <span className="muted">No password</span>}</td>
                <td>
                  {manageable ? (
                    <div className="member-actions">
                      {self ? null : (
                        <button
                          type="button"
                          disabled={busy !== undefined}
                          onClick={() =>
                            void act(`reset:${member.user_id}`, async () => {
                              const answer = await call<{ password: string }>(
                                'POST',
                                `${path(member)}/password`,
                              );
                              setIssued({
                                email: member.email,
                                password: answer.password,
                                reset: true,
                              });
                            })
                          }
                        >
                          Reset password
                        </button>
                      )}
                      <RemoveButton
                        email={member.email}
                        disabled={busy !== undefined}
                        onConfirm={() =>
                          act(`remove:${member.user_id}`, async () => {
                            const answer = await call<{ revoked_keys: ApiKey[] }>(
                              'DELETE',
                              path(member),
                            );
                            setMessage(removalMessage(member.email, answer.revoked_keys.length));
                          })
                        }
                      />
                    </div>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </Page>
  );
}

function AddMemberForm(props: {
  me: Me;
  busy: boolean;
  onAdd: (email: string, role: Role) => Promise<boolean>;
}) {
  const grantable = ROLES.filter((role) => mayActOn(props.me, role));
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (await props.onAdd(email.trim(), role)) setEmail('');
  };

  return (
    <form className="inline-form" aria-label="Add member" onSubmit={submit}>
      <label>
        Email
        <input
          name="email"
          type="email"
          required
          maxLength={254}
          value={email}
          onChange={(event) => setEmail(event.target.value)}
        />
      </label>
      <label>
        Role
        <select name="role" value={role} onChange={(event) => setRole(event.target.value as Role)}>
          {grantable.map((value) => (
            <option key={value} value={value}>
              {ROLE_LABELS[value]}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="primary" disabled={props.busy || email.trim() === ''}>
        Add member
      </button>
    </form>
  );
}

/** What a removal did: the member is out, and so are the keys they created. */
function removalMessage(email: string, revokedKeys: number): string {
  const keys =
    revokedKeys === 0
      ? 'they had created no active API key'
      : `${revokedKeys} API ${revokedKeys === 1 ? 'key' : 'keys'} they created ${revokedKeys === 1 ? 'was' : 'were'} revoked`;
  return `${email} was removed from the workspace; ${keys}.`;
}

/**
 * Remove, then Confirm removal: one click never removes anyone, and the confirmation says
 * the member's keys go with them.
 */
function RemoveButton(props: {
  email: string;
  disabled: boolean;
  onConfirm: () => Promise<boolean>;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button
        type="button"
        className="danger"
        disabled={props.disabled}
        onClick={() => setAsking(true)}
      >
        Remove
      </button>
    );
  }
  return (
    <>
      <span className="muted" data-testid="removal-warning">
        Their sessions end and the API keys they created are revoked.
      </span>
      <button
        type="button"
        className="danger"
        disabled={props.disabled}
        aria-label={`Confirm removal of ${props.email}`}
        onClick={() => void props.onConfirm().finally(() => setAsking(false))}
      >
        Confirm removal
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </>
  );
}
