import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { startS3Server } from '../../test/support/s3-server.ts';

// The S3-compatible test server in its own process (so it does not share the benchmark's CPU
// thread or count in its RSS), with the buckets named on the command line. Prints its endpoint.
const server = await startS3Server();
const client = new S3Client({
  endpoint: server.endpoint,
  region: 'us-east-1',
  forcePathStyle: true,
  credentials: { accessKeyId: 'k', secretAccessKey: 's' },
});
for (const bucket of process.argv.slice(2)) await client.send(new CreateBucketCommand({ Bucket: bucket }));
client.destroy();
process.stdout.write(`${JSON.stringify({ endpoint: server.endpoint })}\n`);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
