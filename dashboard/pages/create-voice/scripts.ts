/**
 * Scripts for the Record tab: each takes about ten seconds to read aloud at a calm pace,
 * and is saved as the recording's exact transcript.
 */
export interface RecordingScript {
  /** BCP 47 tag stored as the recording's language. */
  language: string;
  name: string;
  text: string;
}

export const RECORDING_SCRIPTS: readonly RecordingScript[] = [
  {
    language: 'en-US',
    name: 'English',
    text: 'The morning train was late again, so I bought a warm coffee, found a quiet seat by the window, and watched the city slowly wake up.',
  },
  {
    language: 'zh-CN',
    name: '中文 (Chinese)',
    text: '今天早上的火车又晚点了，我买了一杯热咖啡，在靠窗的安静位置坐下，看着窗外的城市慢慢醒来。',
  },
  {
    language: 'ja-JP',
    name: '日本語 (Japanese)',
    text: '今朝の電車はまた遅れていたので、温かいコーヒーを買って窓際の静かな席に座り、街がゆっくりと目を覚ますのを眺めていました。',
  },
];

/** About how long a script takes to read. */
export const SCRIPT_SECONDS = 10;
