// A real OpenID provider for the single sign-on tests: panva's oidc-provider (OpenID
// certified), pinned in package.json, with one confidential client and any account the
// login form names. Usage: PORT=… REDIRECT_URIS=uri[,uri…] node provider.mjs
// Prints "listening <issuer>" once it answers. The login form takes an account id and
// signs it in; consent is given at once, so a test drives the flow with plain requests.
import Provider from 'oidc-provider';

const port = Number(process.env.PORT);
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: process.env.CLIENT_ID ?? 'tracepoint',
      client_secret: process.env.CLIENT_SECRET ?? 'tracepoint-secret',
      redirect_uris: process.env.REDIRECT_URIS.split(','),
      response_types: ['code'],
      grant_types: ['authorization_code'],
    },
  ],
  // Every account exists; its e-mail is <id>@example.com, its names "<id> Tester".
  async findAccount(ctx, id) {
    return {
      accountId: id,
      async claims() {
        return {
          sub: id,
          email: `${id}@example.com`,
          email_verified: true,
          given_name: id,
          family_name: 'Tester',
        };
      },
    };
  },
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['given_name', 'family_name'],
  },
  features: { devInteractions: { enabled: false } },
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
  pkce: { required: () => true },
  cookies: { keys: ['openid-provider-test-key'] },
});

async function formBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return new URLSearchParams(Buffer.concat(chunks).toString());
}

provider.use(async (ctx, next) => {
  const match = ctx.path.match(/^\/interaction\/([^/]+)(\/login)?$/);
  if (!match) return next();
  const { req, res } = ctx;
  const details = await provider.interactionDetails(req, res);
  const prompt = details.prompt.name;
  if (prompt === 'login' && ctx.method === 'POST' && match[2]) {
    const login = (await formBody(req)).get('login');
    await provider.interactionFinished(req, res, { login: { accountId: login } }, {
      mergeWithLastSubmission: false,
    });
    ctx.respond = false;
    return undefined;
  }
  if (prompt === 'login') {
    ctx.type = 'html';
    ctx.body = `<form method="post" action="/interaction/${details.uid}/login">`
      + '<input name="login"><button>Sign in</button></form>';
    return undefined;
  }
  if (prompt === 'consent') {
    const grant = new provider.Grant({
      accountId: details.session.accountId,
      clientId: details.params.client_id,
    });
    const missing = details.prompt.details;
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, {
      mergeWithLastSubmission: true,
    });
    ctx.respond = false;
    return undefined;
  }
  ctx.status = 400;
  ctx.body = `unexpected prompt ${prompt}`;
  return undefined;
});

provider.listen(port, '127.0.0.1', () => {
  console.log(`listening ${issuer}`);
});
