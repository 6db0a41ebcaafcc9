import { z } from 'zod';
import { bool } from './fields.ts';

/**
 * Where stored audio lives (synthesized requests, session recordings, voice samples): the
 * local disk under DATA_DIR by default, or an S3-compatible bucket shared by every host of a
 * fleet. Part of `configSchema` (src/app/config.ts).
 */
export const storageConfigShape = {
  /**
   * `s3://bucket` or `s3://bucket/prefix` stores audio in that bucket; unset keeps it on
   * the local disk (DATA_DIR/audio, DATA_DIR/voice-samples).
   */
  STORAGE_URL: z
    .string()
    .regex(
      /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/[^/].*)?$/,
      'must be s3://bucket or s3://bucket/prefix',
    )
    .optional(),
  /** Origin of an S3-compatible server (SeaweedFS, MinIO, R2); unset means AWS S3. */
  S3_ENDPOINT: z.url().optional(),
  /** Region sent with each request (S3-compatible servers mostly ignore it). */
  S3_REGION: z.string().min(1).default('us-east-1'),
  /** Access key pair; unset, the AWS SDK's default chain (AWS_* variables, instance role). Never logged. */
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Bucket in the path rather than the host name; default on when S3_ENDPOINT is set. */
  S3_FORCE_PATH_STYLE: bool.optional(),
};
