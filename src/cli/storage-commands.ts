import type { Command } from 'commander';
import { loadConfig } from '../app/config.ts';
import { audioStorageDir, sampleStorageDir } from '../storage/audio-storage-dir.ts';
import { copyLocalStore } from '../storage/copy-store.ts';
import { LocalDiskAudioStore } from '../storage/local-disk-store.ts';
import { openAudioStores } from '../storage/stores.ts';
import { json, outputOf } from './options.ts';
import { printResult } from './output.ts';

/** `awp storage copy-to-bucket`: moving a deployment's stored audio from the disk to S3. */
export function registerStorageCommands(program: Command): void {
  const storage = program.command('storage').description('stored audio, recordings and samples');
  json(
    storage
      .command('copy-to-bucket')
      .description(
        "copy DATA_DIR's stored audio, recordings and voice samples into the STORAGE_URL bucket (skips objects already there)",
      ),
  ).action(async (options) => {
    const config = loadConfig();
    if (!config.STORAGE_URL) {
      process.stderr.write('STORAGE_URL is not set: name the bucket (s3://bucket/prefix)\n');
      process.exitCode = 2;
      return;
    }
    const target = openAudioStores(config);
    const audio = await copyLocalStore(
      new LocalDiskAudioStore(audioStorageDir(config)),
      target.audio,
    );
    const samples = await copyLocalStore(
      new LocalDiskAudioStore(sampleStorageDir(config.DATA_DIR)),
      target.samples,
    );
    printResult(
      outputOf(options),
      { audio, samples },
      `Copied ${audio.copied} audio objects and ${samples.copied} voice samples ` +
        `(${audio.skipped + samples.skipped} already in the bucket)`,
    );
  });
}
