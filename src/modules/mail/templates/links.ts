/**
 * The links mail carries, all into the web console (`/console/#/...`, a hash route: a token in
 * the fragment never reaches a server log). The base is PUBLIC_BASE_URL, else the address the
 * service listens on, which is right for one machine.
 */
export class MailLinks {
  readonly base: string;

  constructor(http: { publicBaseUrl: string | null; host: string; port: number }) {
    const host =
      http.host === '0.0.0.0' || http.host === '::'
        ? 'localhost'
        : http.host.includes(':')
          ? `[${http.host}]`
          : http.host;
    this.base = http.publicBaseUrl ?? `http://${host}:${http.port}`;
  }

  /** Where an invited user chooses a password, or a user resets theirs, and is then signed in. */
  password(token: string, subdomain: string, email: string): string {
    return this.console(`password?${new URLSearchParams({ token, tenant: subdomain, email })}`);
  }

  tasks(): string {
    return this.console('tasks');
  }

  execution(id: string): string {
    return this.console(`executions/${encodeURIComponent(id)}`);
  }

  profile(): string {
    return this.console('profile');
  }

  home(): string {
    return `${this.base}/console/`;
  }

  private console(route: string): string {
    return `${this.base}/console/#/${route}`;
  }
}
