import { useId } from 'react';
import { Notice } from '../../components.tsx';
import { type AgentFormValues, thinkingLevelsOf, withModel } from './agent-edits.ts';
import type { AgentVoice, LlmProviderOption, ThinkingLevel } from './agent-types.ts';

/** A select's options: the offered values, and the current one marked when it is not offered. */
function optionsWith(
  offered: readonly { value: string; label: string }[],
  current: string,
  missingLabel: (value: string) => string,
): { value: string; label: string }[] {
  if (offered.some((option) => option.value === current)) return [...offered];
  return [{ value: current, label: missingLabel(current) }, ...offered];
}

const THINKING_LABELS: Record<ThinkingLevel, string> = {
  off: 'Off',
  low: 'Low',
  medium: 'Medium',
  high: 'High',
};

/**
 * Voice and language model of the Edit Agent form: a voice clients can use, a provider, a
 * model and a thinking level among what this deployment offers. A stored choice that is no
 * longer offered stays shown, marked, until another is picked.
 */
export function ModelFields(props: {
  values: AgentFormValues;
  voices: readonly AgentVoice[];
  providers: readonly LlmProviderOption[];
  onChange: (values: AgentFormValues) => void;
}) {
  const { values, providers, onChange } = props;
  const voiceOptions = optionsWith(
    props.voices.map((voice) => ({ value: voice.id, label: voice.name })),
    values.voiceId,
    (id) => (id === '' ? 'No voice' : `${id} (not usable by clients)`),
  );
  const providerOptions = optionsWith(
    providers.map((provider) => ({ value: provider.name, label: provider.name })),
    values.llmProvider,
    (name) => (name === '' ? 'None' : `${name} (not offered)`),
  );
  const modelOptions = optionsWith(
    (providers.find((provider) => provider.name === values.llmProvider)?.models ?? []).map(
      (model) => ({ value: model.name, label: model.name }),
    ),
    values.llmModel,
    (name) => (name === '' ? 'None' : `${name} (not offered)`),
  );
  const levelOptions = optionsWith(
    thinkingLevelsOf(providers, values.llmProvider, values.llmModel).map((level) => ({
      value: level,
      label: THINKING_LABELS[level],
    })),
    values.thinkingLevel,
    (level) => `${THINKING_LABELS[level as ThinkingLevel] ?? level} (not allowed)`,
  );

  const offered = providers
    .find((provider) => provider.name === values.llmProvider)
    ?.models.find((model) => model.name === values.llmModel)
    ?.thinking_levels.includes(values.thinkingLevel);

  return (
    <>
      <div className="agent-form-row">
        <SelectField
          label="Voice"
          name="voice_id"
          value={values.voiceId}
          options={voiceOptions}
          onChange={(voiceId) => onChange({ ...values, voiceId })}
        />
        <LanguageField
          value={values.language}
          onChange={(language) => onChange({ ...values, language })}
        />
      </div>
      <div className="agent-form-row agent-model-row">
        <SelectField
          label="Language model provider"
          name="llm_provider"
          value={values.llmProvider}
          options={providerOptions}
          onChange={(provider) => onChange(withModel(values, providers, provider))}
        />
        <SelectField
          label="Model"
          name="llm_model"
          value={values.llmModel}
          options={modelOptions}
          onChange={(model) => onChange(withModel(values, providers, values.llmProvider, model))}
        />
        <SelectField
          label="Thinking level"
          name="thinking_level"
          value={values.thinkingLevel}
          options={levelOptions}
          onChange={(level) => onChange({ ...values, thinkingLevel: level as ThinkingLevel })}
        />
      </div>
      {providers.length === 0 ? (
        <Notice kind="warning">
          This deployment offers no language model: an Agent cannot be published until OpenAI,
          Anthropic or the embedded model is configured.
        </Notice>
      ) : null}
      {providers.length > 0 && !offered ? (
        <Notice kind="warning">
          This deployment does not offer the language model or thinking level shown: choose one
          before publishing.
        </Notice>
      ) : null}
      <FeatureSwitches values={values} onChange={onChange} />
    </>
  );
}

/** The language the Agent's users speak: a BCP 47 tag, or empty for the voice's. */
function LanguageField(props: { value: string; onChange: (value: string) => void }) {
  const id = useId();
  return (
    <div className="agent-field">
      <label htmlFor={id}>Users’ language</label>
      <input
        id={id}
        name="language"
        maxLength={35}
        placeholder="The voice’s language"
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
      />
      <p className="muted agent-hint">
        A language tag such as <code>en</code> or <code>es-MX</code>: speech recognition listens for
        it. Empty: the voice’s language, else detected as the user speaks.
      </p>
    </div>
  );
}

/** A labelled select (the label names the control, not its options). */
function SelectField(props: {
  label: string;
  name: string;
  value: string;
  options: readonly { value: string; label: string }[];
  onChange: (value: string) => void;
}) {
  const id = useId();
  return (
    <div className="agent-field">
      <label htmlFor={id}>{props.label}</label>
      <select
        id={id}
        name={props.name}
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
      >
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}

const SWITCHES = [
  ['webSearchEnabled', 'Web search'],
  ['memoryEnabled', 'Memory'],
  ['calendarEnabled', 'Calendar'],
  ['documentsEnabled', 'Documents'],
  ['recordingEnabled', 'Record sessions'],
] as const;

/**
 * The feature switches; memory, calendar and documents ask session tokens for an end user,
 * and recorded sessions should be disclosed to the users.
 */
function FeatureSwitches(props: {
  values: AgentFormValues;
  onChange: (values: AgentFormValues) => void;
}) {
  return (
    <fieldset className="agent-switches">
      <legend>Features</legend>
      <div className="agent-switch-row">
        {SWITCHES.map(([field, label]) => (
          <label key={field} className="checkbox">
            <input
              type="checkbox"
              checked={props.values[field]}
              onChange={(event) =>
                props.onChange({ ...props.values, [field]: event.target.checked })
              }
            />
            {label}
          </label>
        ))}
      </div>
      <p className="muted agent-hint">
        With memory, calendar or documents published, every session token names its end user (
        <code>end_user_id</code>).
      </p>
      <p className="muted agent-hint">
        Record sessions keeps a stereo recording of each live session; tell your users they are
        recorded.
      </p>
    </fieldset>
  );
}
