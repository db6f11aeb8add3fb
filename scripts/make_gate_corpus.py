"""Write the secret-scanner corpus under tests/data/ (deterministic; re-run to regenerate).

    python scripts/make_gate_corpus.py

Positives (secrets_positive.jsonl): fake values in the real formats of every kind of secret
the scanner names, each set in a realistic carrier (.env lines, YAML, JSON, shell history,
code, curl, prose). Negatives (secrets_negative.jsonl, by set): real English prose and real
code (docstrings and source lines of the Python standard library); structured text (log
lines, UUIDs, git SHAs, hex and SRI digests, file paths, URLs without credentials, base64 data
that is not a secret); look-alikes (placeholders, vendor prefixes with no token, public keys
and certificates, vendors' names in prose) — things a scanner must not flag. Real chat is a
further benign set, read by path in bench/bench_gates.py, never copied here.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import inspect
import json
import random
import string
import uuid
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "data"
rng = random.Random(20261122)
ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64URL = ALNUM + "-_"


def rand(alphabet: str, n: int) -> str:
    # Guarantee mixed classes so "random" looks random, as real tokens do.
    mixed = any(c.isdigit() for c in alphabet) and any(c.isalpha() for c in alphabet)
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(n))
        if alphabet == HEX or not mixed or n < 8:
            return value
        if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
            return value


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def jwt() -> str:
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = b64url(
        json.dumps({"sub": rand(string.digits, 8), "iat": rng.randint(10**9, 2 * 10**9)}).encode()
    )
    return f"{header}.{payload}.{rand(B64URL, 43)}"


RANDOM_PARTS: list[str] = []  # what fill() made up, the secret part of what it returns


def fill(template: str) -> str:
    """Fill a value template: {A36} letters and digits, {H32} lower-case hex, {X32} hex of
    either case, {N17} upper-case letters and digits, {L30} lower-case letters and digits,
    {W43} base64url, {S40} base64, {D10} digits, {B52} base32, {U} a UUID."""
    alphabets = {
        "A": ALNUM,
        "H": HEX,
        "X": HEX + "ABCDEF",
        "N": string.ascii_uppercase + string.digits,
        "L": LOWER_ALNUM,
        "W": B64URL,
        "S": ALNUM + "+/",
        "D": string.digits,
        "B": string.ascii_lowercase + "234567",
    }
    out, i = [], 0
    while i < len(template):
        if template.startswith(("{{", "}}"), i):  # a literal brace
            out.append(template[i])
            i += 2
        elif template[i] == "{":
            j = template.index("}", i)
            spec = template[i + 1 : j]
            if spec == "U":
                out.append(str(uuid.UUID(int=rng.getrandbits(128))))
            else:
                out.append(rand(alphabets[spec[0]], int(spec[1:])))
            RANDOM_PARTS.append(out[-1])
            i = j + 1
        else:
            out.append(template[i])
            i += 1
    return "".join(out)


# kind -> value templates, written from each vendor's documented token format (not from the
# scanner's patterns, so that the corpus checks them).
TEMPLATES: dict[str, tuple[str, ...]] = {
    "GitHub token": ("ghp_{A36}", "gho_{A36}", "ghs_{A36}", "github_pat_{A22}_{A59}"),
    "GitLab token": ("glpat-{W20}",),
    "GitLab pipeline trigger token": ("glptt-{H40}",),
    "GitLab deploy token": ("gldt-{W20}",),
    "GitLab runner token": ("glrt-{W20}",),
    "GitLab runner registration token": ("GR1348941{W20}",),
    "GitLab CI/CD job token": ("glcbt-{H2}_{W20}", "glcbt-{W20}"),
    "GitLab incoming mail token": ("glimt-{W25}",),
    "GitLab agent token": ("glagent-{W50}",),
    "GitLab OAuth secret": ("gloas-{W64}",),
    "GitLab feed token": ("glft-{W20}",),
    "GitLab SCIM token": ("glsoat-{W20}",),
    "GitLab feature flag token": ("glffct-{W20}",),
    "Slack bot token": ("xoxb-{D11}-{D12}-{A24}",),
    "Slack user token": ("xoxp-{D11}-{D11}-{D12}-{H32}",),
    "Slack config token": ("xoxe.xoxp-1-{A146}",),
    "Slack refresh token": ("xoxe-1-{A146}",),
    "Slack legacy token": ("xoxa-{D11}-{A24}", "xoxs-{D11}-{A24}"),
    "Slack app token": ("xapp-1-{N11}-{D13}-{H64}",),
    "Slack webhook": ("https://hooks.slack.com/services/T{N10}/B{N10}/{A24}",),
    "OpenAI API key": ("sk-{A48}", "sk-proj-{W64}", "sk-svcacct-{W64}"),
    "Anthropic API key": ("sk-ant-api03-{W93}AA", "sk-ant-admin01-{W93}AA"),
    "OpenRouter API key": ("sk-or-v1-{H64}",),
    "Langfuse secret key": ("sk-lf-{U}",),
    "Helicone API key": ("sk-helicone-{L7}-{L7}-{L7}-{L7}",),
    "Stripe secret key": ("sk_live_{A24}", "sk_test_{A99}", "rk_live_{A24}"),
    "Stripe webhook secret": ("whsec_{A32}",),
    "ElevenLabs API key": ("sk_{H48}",),
    "npm token": ("npm_{A36}",),
    "PyPI token": ("pypi-AgEIcHlwaS5vcmc{W60}",),
    "RubyGems API key": ("rubygems_{H48}",),
    "NuGet API key": ("oy2{L43}",),
    "crates.io token": ("cio{A32}",),
    "Clojars token": ("CLOJARS_{L60}",),
    "Docker Hub token": ("dckr_pat_{W27}",),
    "JFrog API key": ("AKCp{A69}",),
    "JFrog identity token": ("cmVmdGtuOjAxOj{A50}",),
    "Google API key": ("AIza{W35}",),
    "Google OAuth secret": ("GOCSPX-{W28}",),
    "Google OAuth access token": ("ya29.a0{W120}",),
    "Google OAuth refresh token": ("1//0{W100}",),
    "AWS access key": ("AKIA{N16}", "ASIA{N16}"),
    "AWS secret key": ("aws_secret_access_key = {S40}",),
    "AWS Bedrock API key": ("ABSK{S130}",),
    "AWS session token": ("AWS_SESSION_TOKEN={S300}",),
    "Alibaba access key": ("LTAI{A20}",),
    "Tencent Cloud secret id": ("AKID{A32}",),
    "Scaleway access key": ("SCW{N17}",),
    "Hugging Face token": ("hf_{A34}",),
    "Hugging Face organisation token": ("api_org_{A34}",),
    "SendGrid API key": ("SG.{W22}.{W43}",),
    "Sendinblue API key": ("xkeysib-{H64}-{A16}",),
    "Mailgun API key": ("key-{H32}",),
    "Twilio API key": ("SK{H32}",),
    "Shopify token": ("shpat_{H32}", "shpss_{H32}", "shpca_{H32}"),
    "Square token": ("sq0atp-{W22}", "sq0csp-{W43}", "EAAA{W60}"),
    "Facebook access token": ("EAAC{A160}", "EAAM{A120}"),
    "Instagram access token": ("IGQV{W160}",),
    "Twitter bearer token": ("AAAAAAAAAAAAAAAAAAAAA{A60}%3D{A50}",),
    "DigitalOcean token": ("dop_v1_{H64}",),
    "DigitalOcean OAuth token": ("doo_v1_{H64}",),
    "DigitalOcean refresh token": ("dor_v1_{H64}",),
    "Atlassian API token": ("ATATT3xFfGF0{W180}", "ATCTT3xFfGN0{W180}"),
    "Bitbucket app password": ("ATBB{A32}",),
    "Linear API key": ("lin_api_{A40}",),
    "Notion token": ("secret_{A43}", "ntn_{A46}"),
    "Figma token": ("figd_{W40}",),
    "Groq API key": ("gsk_{A52}",),
    "xAI API key": ("xai-{A80}",),
    "Replicate token": ("r8_{A37}",),
    "Perplexity API key": ("pplx-{A48}",),
    "Pinecone API key": ("pcsk_{A6}_{A60}",),
    "LangSmith API key": ("lsv2_pt_{H32}_{H10}", "lsv2_sk_{H32}_{H10}"),
    "Fireworks API key": ("fw_{A24}",),
    "Vault token": ("hvs.{W90}", "hvb.{W120}"),
    "age secret key": ("AGE-SECRET-KEY-1{N58}",),
    "Adafruit IO key": ("aio_{A28}",),
    "Airtable token": ("pat{A14}.{H64}",),
    "Apify token": ("apify_api_{A36}",),
    "Buildkite token": ("bkua_{H40}",),
    "CircleCI token": ("CCIPAT_{A22}_{H40}",),
    "Cloudflare origin CA key": ("v1.0-{H24}-{H146}",),
    "Contentful token": ("CFPAT-{W43}",),
    "Databricks token": ("dapi{H32}", "dapi{H32}-2"),
    "Defined Networking key": ("dnkey-{L26}-{L52}",),
    "Doppler token": ("dp.pt.{A43}", "dp.st.prd.{A40}", "dp.sa.{A43}"),
    "Dropbox token": ("sl.{W140}",),
    "Duffel token": ("duffel_test_{W43}", "duffel_live_{W43}"),
    "Dynatrace token": ("dt0c01.{N24}.{N64}",),
    "EasyPost key": ("EZAK{A54}", "EZTK{A54}"),
    "Flutterwave secret key": ("FLWSECK_TEST-{H32}-X", "FLWSECK-{H32}-X"),
    "Fly.io token": ("fo1_{W43}", "FlyV1 fm2_{W120}", "fm1_{W80}"),
    "Frame.io token": ("fio-u-{W64}",),
    "GoCardless token": ("live_{W40}",),
    "Mollie API key": ("live_{A30}", "test_{A30}"),
    "Grafana API key": ("eyJrIjoi{A90}",),
    "Grafana Cloud token": ("glc_{S60}",),
    "Grafana service account token": ("glsa_{A32}_{H8}",),
    "Harness token": ("pat.{W22}.{L24}.{L20}", "sat.{W22}.{L24}.{L20}"),
    "Heroku API key": ("HRKU-{W60}",),
    "HubSpot token": ("pat-na1-{U}", "pat-eu1-{U}"),
    "Infracost API key": ("ico-{A32}",),
    "Intra42 secret": ("s-s4t2ud-{H64}",),
    "LaunchDarkly key": ("api-{U}", "sdk-{U}"),
    "Mapbox secret token": ("sk.eyJ1Ijoi{W30}.{W22}",),
    "Netlify token": ("nfp_{A40}",),
    "New Relic key": ("NRAK-{N27}", "NRII-{W32}", "NRJS-{H19}"),
    "1Password service account token": ("ops_eyJ{W250}",),
    "1Password secret key": ("A3-{N6}-{N11}-{N5}-{N5}-{N5}", "A3-{N6}-{N6}-{N5}-{N5}-{N5}-{N5}"),
    "Octopus Deploy API key": ("API-{N26}",),
    "OpenShift token": ("sha256~{W43}",),
    "PlanetScale password": ("pscale_pw_{W43}",),
    "PlanetScale token": ("pscale_tkn_{W43}",),
    "PlanetScale OAuth token": ("pscale_oauth_{W43}",),
    "Postman API key": ("PMAK-{H24}-{H34}",),
    "PostHog personal API key": ("phx_{A43}",),
    "Prefect token": ("pnu_{A36}",),
    "Pulumi token": ("pul-{H40}",),
    "ReadMe API key": ("rdme_{L70}",),
    "Render API key": ("rnd_{A32}",),
    "Resend API key": ("re_{A8}_{A24}",),
    "Neon API key": ("napi_{L64}",),
    "Vercel token": ("vcp_{A56}", "vck_{A56}"),
    "Scalingo token": ("tk-us-{W48}",),
    "Sentry token": ("sntrys_eyJpYXQiOjE3{W90}", "sntryu_{H64}"),
    "Settlemint token": ("sm_pat_{A16}", "sm_aat_{A16}"),
    "Shippo token": ("shippo_live_{H40}", "shippo_test_{H40}"),
    "SonarQube token": ("squ_{H40}", "sqp_{H40}"),
    "Sourcegraph token": ("sgp_{H40}", "sgp_{H16}_{H40}"),
    "Supabase token": ("sbp_{H40}",),
    "Supabase secret key": ("sb_secret_{W32}",),
    "Tailscale key": ("tskey-auth-{A17}-{A34}", "tskey-api-{A17}-{A34}"),
    "Typeform token": ("tfp_{W59}",),
    "Yandex API key": ("AQVN{W36}",),
    "Yandex token": ("t1.{W60}.{W86}",),
    "TeamCity token": ("eyJ0eXAiOiAiVENWMiJ9.{W36}.{W48}",),
    "Braintree access token": (
        "access_token$production${L16}${H32}",
        "access_token$sandbox${L16}${H32}",
    ),
    "Razorpay key": ("rzp_live_{A14}",),
    "Paddle API key": ("pdl_live_apikey_{A40}", "pdl_sdbx_apikey_{A40}"),
    "Plaid access token": ("access-production-{U}", "access-sandbox-{U}"),
    "Salesforce access token": ("00D{A15}!{W100}",),
    "Lob API key": ("live_{H35}", "test_{H35}"),
    "private key": (
        "-----BEGIN RSA PRIVATE KEY-----\n{S64}\n{S64}\n-----END RSA PRIVATE KEY-----",
        "-----BEGIN OPENSSH PRIVATE KEY-----\n{S70}",
        "-----BEGIN EC PRIVATE KEY-----\n{S64}",
        "-----BEGIN PRIVATE KEY-----\n{S64}",
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\n{S64}",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\nComment: exported\n\n{S64}",
    ),
    "PuTTY private key": (
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: laptop\n"
        "Public-Lines: 2\n{S64}\n{S16}\nPrivate-Lines: 1\n{S44}",
    ),
    "Kubernetes client key": ("users:\n- name: admin\n  user:\n    client-key-data: {S200}",),
    "Discord webhook": ("https://discord.com/api/webhooks/{D18}/{W68}",),
    "Microsoft Teams webhook": (
        "https://acme.webhook.office.com/webhookb2/{U}@{U}/IncomingWebhook/{H32}/{U}",
    ),
    "Zapier webhook": ("https://hooks.zapier.com/hooks/catch/{D7}/{L7}/",),
    "Discord bot token": ("MT{A24}.{W6}.{W38}",),
    "Telegram bot token": ("{D10}:AA{W33}",),
    "Firebase server key": ("AAAA{W7}:APA91b{W134}",),
    "Azure storage key": (
        "DefaultEndpointsProtocol=https;AccountName=store{L6};AccountKey={S86}==;"
        "EndpointSuffix=core.windows.net",
    ),
    "Azure SAS token": ("https://acct.blob.core.windows.net/c?sv=2022-11-02&sig={S43}%3D",),
    "Azure AD client secret": ("{A3}8Q~{W34}",),
    "password in URL": (
        "postgres://app:{A14}@db.internal:5432/main",
        "mongodb+srv://admin:{A12}@cluster0.example.net/app",
        "redis://:{A20}@10.0.3.7:6379/0",
        "amqp://svc:{A16}@mq.internal:5672/",
    ),
    "DSN with a key": ("https://{H32}@o{D6}.ingest.sentry.io/{D7}",),
    "password in connection string": ("Server=sql01;Database=app;User Id=sa;Password={A14};",),
    "Redis password": ("requirepass {A24}",),
    "Docker registry auth": ('{{"auths": {{"ghcr.io": {{"auth": "{S40}"}}}}}}',),
    "token named in the text": ("the vendor's auth token is {H32}",),
    "JWT": ("{JWT}",),
    "GCP service account": (
        '{{"type": "service_account", "project_id": "demo-{L6}", "private_key_id": "{H40}"}}',
    ),
    "Terraform Cloud token": ("{A14}.atlasv1.{W67}",),
    "Mailchimp API key": ("{H32}-us{D2}",),
    "authorization header": ("Authorization: Bearer {A40}", "authorization: Basic {S32}"),
    "secret assignment": (
        "DB_PASSWORD={A16}",
        "CLIENT_SECRET: {A24}",
        "SECRET_KEY = {A20}",
        "jwt_secret={A18}",
    ),
    "high-entropy string": ("{A40}",),
}

# Kinds with no prefix of their own: the vendor's name is said before the value.
NAMED_TEMPLATES: dict[str, tuple[str, str]] = {
    "Heroku API key": ("heroku", "{U}"),
    "Datadog API key": ("datadog", "{H32}"),
    "Datadog application key": ("datadog", "{H40}"),
    "Algolia API key": ("algolia", "{H32}"),
    "Asana token": ("asana", "1/{D16}:{H32}"),
    "Bitbucket secret": ("bitbucket", "{W48}"),
    "Cloudflare API token": ("cloudflare", "{W40}"),
    "Cloudflare global API key": ("cloudflare", "{H37}"),
    "Codecov token": ("codecov", "{U}"),
    "Cohere API key": ("cohere", "{A40}"),
    "Confluent secret": ("confluent", "{S64}"),
    "Coinbase API secret": ("coinbase", "{W64}"),
    "Contentful delivery token": ("contentful", "{W43}"),
    "Fastly API token": ("fastly", "{W32}"),
    "Finnhub token": ("finnhub", "{L20}"),
    "Etsy API key": ("etsy", "{L24}"),
    "Twitch API token": ("twitch", "{L30}"),
    "Zendesk API token": ("zendesk", "{A40}"),
    "Mattermost token": ("mattermost", "{L26}"),
    "MessageBird API key": ("messagebird", "{A25}"),
    "Mailjet API secret": ("mailjet", "{H32}"),
    "Postmark server token": ("postmark", "{U}"),
    "Kraken API key": ("kraken", "{S86}"),
    "KuCoin API secret": ("kucoin", "{U}"),
    "Bittrex API key": ("bittrex", "{A32}"),
    "FreshBooks token": ("freshbooks", "{A64}"),
    "Gitter token": ("gitter", "{W40}"),
    "Intercom token": ("intercom", "{W60}"),
    "LinkedIn client secret": ("linkedin", "{A16}"),
    "Looker client secret": ("looker", "{A24}"),
    "New York Times API key": ("nytimes", "{W32}"),
    "RapidAPI key": ("rapidapi", "{W50}"),
    "Sumo Logic access key": ("sumologic", "{A64}"),
    "Travis CI token": ("travis", "{A22}"),
    "Sendbird token": ("sendbird", "{H40}"),
    "Squarespace API key": ("squarespace", "{U}"),
    "Okta token": ("okta", "00{W40}"),
    "Mistral API key": ("mistral", "{A32}"),
    "Deepgram API key": ("deepgram", "{H40}"),
    "AssemblyAI API key": ("assemblyai", "{H32}"),
    "Azure OpenAI key": ("azure openai", "{H32}"),
    "Azure DevOps token": ("azure devops", "{B52}"),
    "Twilio auth token": ("twilio", "{H32}"),
    "MongoDB Atlas private key": ("atlas", "{U}"),
    "Segment write key": ("segment", "{A32}"),
    "Mixpanel API secret": ("mixpanel", "{H32}"),
    "Amplitude API secret": ("amplitude", "{H32}"),
    "Honeycomb API key": ("honeycomb", "{A22}"),
    "Rollbar token": ("rollbar", "{H32}"),
    "Bugsnag API key": ("bugsnag", "{H32}"),
    "Splunk HEC token": ("splunk", "{U}"),
    "Better Stack token": ("logtail", "{A24}"),
    "Raygun API key": ("raygun", "{A22}"),
    "PagerDuty API key": ("pagerduty", "u+{W18}"),
    "Opsgenie API key": ("opsgenie", "{U}"),
    "Lightstep token": ("lightstep", "{A120}"),
    "Logz.io token": ("logzio", "{A32}"),
    "Snyk token": ("snyk", "{U}"),
    "Codacy token": ("codacy", "{A32}"),
    "Coveralls token": ("coveralls", "{A32}"),
    "Jenkins API token": ("jenkins", "11{H32}"),
    "Drone CI token": ("drone", "{A32}"),
    "Gitea token": ("gitea", "{H40}"),
    "Expo access token": ("expo", "{W40}"),
    "Vonage API secret": ("vonage", "{A16}"),
    "Plivo auth token": ("plivo", "{A40}"),
    "Pushover token": ("pushover", "{L30}"),
    "Zulip API key": ("zulip", "{A32}"),
    "Webex token": ("webex", "{A64}"),
    "LINE channel token": ("line", "{S172}"),
    "Trello API token": ("trello", "{A64}"),
    "Zoom secret": ("zoom", "{A32}"),
    "Pusher secret": ("pusher", "{H20}"),
    "Railway token": ("railway", "{U}"),
    "Upstash token": ("upstash", "{W60}"),
    "Together AI API key": ("together", "{H64}"),
    "Weights & Biases API key": ("wandb", "{H40}"),
    "IBM Cloud API key": ("ibm cloud", "{W44}"),
    "Hetzner token": ("hetzner", "{A64}"),
    "Linode token": ("linode", "{H64}"),
    "Vultr API key": ("vultr", "{N36}"),
    "Scaleway secret key": ("scaleway", "{U}"),
    "Auth0 client secret": ("auth0", "{W64}"),
    "Wise API token": ("wise", "{U}"),
    "Adyen API key": ("adyen", "AQE{W80}"),
    "Mailgun signing key": ("mailgun", "{H32}"),
    "SparkPost API key": ("sparkpost", "{H40}"),
}
NAMED_FORMS = (
    "{VENDOR}_API_KEY={v}",
    "my {vendor} api key is {v}",
    "{vendor}:\n  api_token: {v}",
    '{vendor}_secret: "{v}"',
    "set the {vendor} token to {v} in the dashboard",
)


def make(kind: str) -> tuple[str, str]:
    """A snippet that holds a secret of this kind, and the secret itself."""
    RANDOM_PARTS.clear()
    if kind in NAMED_TEMPLATES:
        vendor, template = NAMED_TEMPLATES[kind]
        value = fill(template)
        form = rng.choice(NAMED_FORMS)
        upper = vendor.upper().replace(" ", "_")
        snippet = form.format(vendor=vendor, VENDOR=upper, v=value)
    else:
        template = rng.choice(TEMPLATES[kind])
        snippet = jwt() if template == "{JWT}" else fill(template)
    secret = max(RANDOM_PARTS, key=len) if RANDOM_PARTS else snippet
    return snippet, secret


# Where agents meet secrets: prose, config files, JSON, shell history, code, curl, env files.
CARRIERS = [
    "{s}",
    "export TOKEN_VALUE='{s}'",
    "Here is the key you asked for: {s}",
    'config:\n  credential: "{s}"\n  region: eu-west-1',
    '{{"credential": "{s}", "enabled": true}}',
    "I rotated it yesterday, the new one is {s} (don't share it)",
    "curl -H 'X-Api-Key: {s}' https://api.example.com/v1/items",
    "# .env\nLOG_LEVEL=debug\nVALUE={s}",
    "  501  cd ~/deploy\n  502  ./release.sh --credential {s}\n  503  git status",
    'client = Client(base_url="https://api.example.com", credential="{s}")',
]


def positives() -> list[dict[str, str]]:
    rows = []
    for kind in [*TEMPLATES, *NAMED_TEMPLATES]:
        for i in range(5):
            carrier = CARRIERS[(i + len(kind)) % len(CARRIERS)]
            snippet, secret = make(kind)
            rows.append({"kind": kind, "text": carrier.format(s=snippet), "secret": secret})
    return rows


def lookalikes() -> list[str]:
    """Benign texts that look like secrets: placeholders, prefixes with no token, public keys
    and certificates, the vendors' names in prose, ids and hashes where secrets would go."""
    rows = []
    for kind, templates in TEMPLATES.items():
        prefix = templates[0].split("{")[0]
        if len(prefix) >= 3 and not any(c in prefix for c in "\n:;= "):
            rows.append(f"tokens that start with {prefix} are {kind}s; never paste one here")
            rows.append(f"API_TOKEN={prefix}...")
            rows.append(f'credential = "{prefix}<your-token-here>"')
    for vendor, _ in NAMED_TEMPLATES.values():
        upper = vendor.upper().replace(" ", "_")
        rows.append(f"{upper}_API_KEY=${{{upper}_API_KEY}}")
        rows.append(f"the {vendor} api key lives in the vault, ask ops for access")
        rows.append(f"{vendor}_token: your-{vendor.replace(' ', '-')}-token")
        rows.append(f"{vendor} request id {uuid.UUID(int=rng.getrandbits(128))} returned 404")
    for _ in range(20):
        rows.append(f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rand(ALNUM + '+/', 43)} dev@laptop")
        rows.append(f"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ{rand(ALNUM + '+/', 300)} ci@runner")
        body = "\n".join(rand(ALNUM + "+/", 64) for _ in range(4))
        rows.append(f"-----BEGIN CERTIFICATE-----\n{body}\n-----END CERTIFICATE-----")
        rows.append(f"-----BEGIN PUBLIC KEY-----\n{body}\n-----END PUBLIC KEY-----")
        rows.append(
            f"-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n{body}\n-----END PGP PUBLIC KEY BLOCK-----"
        )
    rows += [
        "-----BEGIN PRIVATE KEY----- is the first line of a PKCS#8 file",
        "postgresql://user:password@localhost/db",
        "password=secret",
        "<influxdb_password>",
        "this.password = password",
        "GET /tokens/{token_id}",
        "ansible_ssh_private_key_file=/path/to/key",
        "The Book of Secrets: a novel",
        "api_key = os.environ['API_KEY']",
        "AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY}",
        "token: refresh-rotation",
        "SECRET_KEY=changeme",
        "DB_PASSWORD=xxxxxxxxxxxx",
        "export OPENAI_API_KEY=sk-...",
        "use your-api-key in the header",
    ]
    for _ in range(30):
        rows.append(
            f"fixed in commit {rand(HEX, 40)}, see https://github.com/acme/app/commit/{rand(HEX, 40)}"
        )
        rows.append(f"shared folder https://drive.example.com/drive/folders/{rand(B64URL, 33)}")
        rows.append(f"open /Users/dev/projects/{rand(LOWER_ALNUM, 8)}/build/{rand(ALNUM, 24)}.o")
    return rows


def prose_and_code() -> tuple[list[str], list[str]]:
    import collections
    import email
    import http.client
    import json as json_module
    import logging
    import pathlib
    import sqlite3
    import urllib.request
    import zipfile

    prose, code = [], []
    for module in (
        collections,
        email,
        http.client,
        json_module,
        logging,
        pathlib,
        sqlite3,
        urllib.request,
        zipfile,
        random,
        string,
        hashlib,
        base64,
        gzip,
        inspect,
        uuid,
    ):
        for _, obj in inspect.getmembers(module):
            doc = inspect.getdoc(obj) or ""
            for paragraph in doc.split("\n\n"):
                text = " ".join(paragraph.split())
                if 40 <= len(text) <= 400 and text[0].isalpha():
                    prose.append(text)
        try:
            source = inspect.getsource(module)
        except (OSError, TypeError):
            continue
        for line in source.splitlines():
            stripped = line.strip()
            if 20 <= len(stripped) <= 160 and not stripped.startswith("#"):
                code.append(stripped)
    rng.shuffle(prose)
    rng.shuffle(code)
    return sorted(set(prose))[:700], sorted(set(code))[:700]


def structured() -> list[str]:
    rows = []
    levels = ["INFO", "WARN", "ERROR", "DEBUG"]
    for _ in range(150):
        rows.append(
            f"2026-0{rng.randint(1, 9)}-{rng.randint(10, 28)}T{rng.randint(10, 23)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}.{rng.randint(100, 999)}Z "
            f"{rng.choice(levels)} [{rng.choice(['worker-3', 'api', 'scheduler'])}] request_id={uuid.UUID(int=rng.getrandbits(128))} "
            f"path=/v1/items/{rng.randint(1, 99999)} status={rng.choice([200, 201, 404, 500])} duration_ms={rng.randint(1, 900)}"
        )
    for _ in range(100):
        rows.append(
            f"trace id {uuid.UUID(int=rng.getrandbits(128))} for job {rng.randint(1, 10**6)}"
        )
    for _ in range(100):
        rows.append(
            f"commit {rand(HEX, 40)} Merge branch 'feature/{rand(string.ascii_lowercase, 6)}'"
        )
    for _ in range(60):
        digest = hashlib.sha256(rand(ALNUM, 12).encode())
        rows.append(
            f"sha256:{digest.hexdigest()}  dist/app-{rng.randint(1, 9)}.{rng.randint(0, 20)}.tar.gz"
        )
        rows.append(f"md5 {hashlib.md5(rand(ALNUM, 8).encode()).hexdigest()} checksum matches")
        sri = base64.b64encode(hashlib.sha512(rand(ALNUM, 8).encode()).digest()).decode()
        rows.append(f'"integrity": "sha512-{sri}"')
    for _ in range(100):
        parts = [
            rng.choice(["src", "lib", "app", "tests", "internal", "pkg", "node_modules", "docs"])
            for _ in range(rng.randint(2, 5))
        ]
        name = rng.choice(
            [
                "handler.ts",
                "UserService.java",
                "main.go",
                "config.yaml",
                "__init__.py",
                "index.tsx",
                "README.md",
            ]
        )
        prefix = rng.choice(["", "/", "./", "C:\\\\Users\\\\dev\\\\", "~/"])
        rows.append(f"edit {prefix}{'/'.join(parts)}/{name} then run the tests")
    for _ in range(100):
        rows.append(
            rng.choice(
                [
                    f"https://github.com/{rand(string.ascii_lowercase, 7)}/{rand(string.ascii_lowercase, 9)}/pull/{rng.randint(1, 9999)}",
                    f"https://docs.example.com/guide/{rand(string.ascii_lowercase, 8)}#section-{rng.randint(1, 9)}",
                    f"https://api.example.com/v2/orders/{rng.randint(10**5, 10**7)}?page={rng.randint(1, 9)}&sort=desc",
                    f"http://localhost:{rng.choice([3000, 5173, 8000, 8080])}/api/health",
                    f"https://user@example.com/{rand(string.ascii_lowercase, 5)}",
                ]
            )
        )
    texts = [
        "hello world, this is a test payload",
        "The quick brown fox jumps over the lazy dog",
        "user=alice&role=viewer&theme=dark",
        '{"ok": true, "count": 3}',
    ]
    for _ in range(60):
        raw = (rng.choice(texts) + " " + rand(string.ascii_lowercase + " ", 20)).encode()
        rows.append(f"payload: {base64.b64encode(raw).decode()}")
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00"
    for _ in range(40):
        blob = rng.choice([png, gzip.compress(rand(string.ascii_lowercase, 40).encode(), mtime=0)])
        rows.append(f"data:image/png;base64,{base64.b64encode(blob).decode()}")
    return rows


def fresh(seed: int, per_kind: int = 20) -> tuple[list[dict[str, str]], list[str]]:
    """Positives and look-alikes made with another seed: values the committed corpus never
    held, to check that the scanner learnt formats rather than examples."""
    rng.seed(seed)
    rows = []
    for kind in [*TEMPLATES, *NAMED_TEMPLATES]:
        for _ in range(per_kind):
            snippet, secret = make(kind)
            carrier = rng.choice(CARRIERS)
            rows.append({"kind": kind, "text": carrier.format(s=snippet), "secret": secret})
    return rows, lookalikes()


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    rows = positives()
    with (OUT / "secrets_positive.jsonl").open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")
    prose, code = prose_and_code()
    sets = {"prose": prose, "code": code, "structured": structured(), "look-alike": lookalikes()}
    with (OUT / "secrets_negative.jsonl").open("w", encoding="utf-8") as handle:
        for name, texts in sets.items():
            for text in texts:
                text = text if name == "look-alike" else " ".join(text.split())
                handle.write(json.dumps({"set": name, "text": text}) + "\n")
    kinds = len({r["kind"] for r in rows})
    print(
        f"{len(rows)} positives ({kinds} kinds); negatives: "
        + ", ".join(f"{len(texts)} {name}" for name, texts in sets.items())
    )


if __name__ == "__main__":
    main()
