"""Which kinds of secret exist, and what each looks like: the scanner's rule table.

The list of kinds follows the rule sets the field trusts (gitleaks' default configuration,
trufflehog's detectors); the patterns are our own, written from each vendor's documented
token format. Three shapes of rule:

- ``PREFIXED``: a vendor prefix, then a body of a known alphabet and length
  (``ghp_`` + 36 letters and digits). Found by one pass for every prefix at once.
- ``NAMED`` (secret_named.py): a value with no prefix of its own, recognisable only by the
  vendor's name said before it (``DATADOG_API_KEY=<32 hex>``, "my heroku key is <uuid>").
- ``FORMATS``: everything else (URLs with credentials, key blocks, headers), each with the
  substrings one of which must occur for it to be possible.

A kind's name is what a refusal says ("contains a Datadog API key at line 2, column 9").
"""

from __future__ import annotations

A = "[A-Za-z0-9]"
W = r"[\w-]"  # letters, digits, _ and -
H = "[a-f0-9]"
HX = "[a-fA-F0-9]"
UP = "[A-Z0-9]"
LO = "[a-z0-9]"
B64 = "[A-Za-z0-9+/]"
UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"

# (kind, prefix, body). A prefix may serve several kinds; the longest matching prefix wins.
PREFIXED: tuple[tuple[str, str, str], ...] = (
    *(("GitHub token", p, f"{A}{{36}}") for p in ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    ("GitHub token", "github_pat_", r"\w{22,}"),
    ("GitLab token", "glpat-", f"{W}{{20,}}"),
    ("GitLab pipeline trigger token", "glptt-", f"{H}{{40}}"),
    ("GitLab deploy token", "gldt-", f"{W}{{20,}}"),
    ("GitLab runner token", "glrt-", f"{W}{{20,}}"),
    ("GitLab runner registration token", "GR1348941", f"{W}{{20,}}"),
    ("GitLab CI/CD job token", "glcbt-", f"(?:{HX}{{1,5}}_)?{W}{{20,}}"),
    ("GitLab incoming mail token", "glimt-", f"{W}{{25,}}"),
    ("GitLab agent token", "glagent-", f"{W}{{50,}}"),
    ("GitLab OAuth secret", "gloas-", f"{W}{{64,}}"),
    ("GitLab feed token", "glft-", f"{W}{{20,}}"),
    ("GitLab SCIM token", "glsoat-", f"{W}{{20,}}"),
    ("GitLab feature flag token", "glffct-", f"{W}{{20,}}"),
    ("Slack bot token", "xoxb-", f"{W}{{10,}}"),
    ("Slack user token", "xoxp-", f"{W}{{10,}}"),
    ("Slack config token", "xoxe.xox", f"[bp]-\\d-{A}{{100,}}"),
    ("Slack refresh token", "xoxe-", f"\\d-{A}{{100,}}"),
    *(("Slack legacy token", p, f"{W}{{10,}}") for p in ("xoxa-", "xoxs-", "xoxo-", "xoxr-")),
    ("Slack app token", "xapp-", f"\\d-{W}{{10,}}"),
    ("OpenAI API key", "sk-", f"{W}{{20,}}"),
    *(("OpenAI API key", p, f"{W}{{20,}}") for p in ("sk-proj-", "sk-svcacct-", "sk-admin-")),
    ("Anthropic API key", "sk-ant-", f"[a-z]{{3,6}}\\d{{2}}-{W}{{20,}}"),
    ("OpenRouter API key", "sk-or-v1-", f"{H}{{64}}"),
    ("Langfuse secret key", "sk-lf-", UUID),
    ("Helicone API key", "sk-helicone-", f"{W}{{20,}}"),
    *(("Stripe secret key", p, f"{A}{{10,}}") for p in ("sk_live_", "sk_test_", "rk_live_")),
    ("Stripe secret key", "rk_test_", f"{A}{{10,}}"),
    ("Stripe webhook secret", "whsec_", f"{A}{{32,}}"),
    ("ElevenLabs API key", "sk_", f"{H}{{48}}"),
    ("npm token", "npm_", f"{A}{{36}}"),
    ("PyPI token", "pypi-AgE", f"{W}{{50,}}"),
    ("RubyGems API key", "rubygems_", f"{H}{{48}}"),
    ("NuGet API key", "oy2", f"{LO}{{43}}"),
    ("crates.io token", "cio", f"{A}{{32}}"),
    ("Clojars token", "CLOJARS_", f"{LO}{{60}}"),
    ("Docker Hub token", "dckr_pat_", f"{W}{{20,}}"),
    ("JFrog API key", "AKCp", f"{A}{{69}}"),
    ("JFrog identity token", "cmVmdGtuOjAxOj", f"{A}{{40,}}"),
    ("Google API key", "AIza", f"{W}{{35}}"),
    ("Google OAuth secret", "GOCSPX-", f"{W}{{28}}"),
    ("Google OAuth access token", "ya29.", f"{W}{{30,}}"),
    ("Google OAuth refresh token", "1//0", f"{W}{{40,}}"),
    ("AWS Bedrock API key", "ABSK", f"{B64}{{100,}}={{0,2}}"),
    ("Alibaba access key", "LTAI", f"{A}{{20}}"),
    ("Tencent Cloud secret id", "AKID", f"{A}{{32}}"),
    ("Scaleway access key", "SCW", f"{UP}{{17}}"),
    ("Hugging Face token", "hf_", f"{A}{{34,}}"),
    ("Hugging Face organisation token", "api_org_", f"{A}{{34}}"),
    ("SendGrid API key", "SG.", f"{W}{{22}}\\.{W}{{43}}"),
    ("Sendinblue API key", "xkeysib-", f"{H}{{64}}-{A}{{16}}"),
    ("Mailgun API key", "key-", f"{H}{{32}}"),
    ("Twilio API key", "SK", f"{HX}{{32}}"),
    *(("Shopify token", p, f"{HX}{{32}}") for p in ("shpat_", "shpca_", "shppa_", "shpss_")),
    ("Square token", "sq0atp-", f"{W}{{22,60}}"),
    ("Square token", "sq0csp-", f"{W}{{40,50}}"),
    ("Square token", "EAAA", f"{W}{{60}}"),
    ("Facebook access token", "EAAM", f"{A}{{100,}}"),
    ("Facebook access token", "EAAC", f"{A}{{100,}}"),
    ("Instagram access token", "IGQV", f"{W}{{80,}}"),
    ("Twitter bearer token", "AAAAAAAAAAAAAAAAAAAAA", "[%\\w]{50,}"),
    ("DigitalOcean token", "dop_v1_", f"{H}{{64}}"),
    ("DigitalOcean OAuth token", "doo_v1_", f"{H}{{64}}"),
    ("DigitalOcean refresh token", "dor_v1_", f"{H}{{64}}"),
    ("Atlassian API token", "ATATT3", "[\\w=-]{50,}"),
    ("Atlassian API token", "ATCTT3", "[\\w=-]{50,}"),
    ("Bitbucket app password", "ATBB", f"{A}{{28,}}"),
    ("Linear API key", "lin_api_", f"{A}{{40}}"),
    ("Notion token", "secret_", f"{A}{{43}}"),
    ("Notion token", "ntn_", f"{A}{{40,}}"),
    ("Figma token", "figd_", f"{W}{{40,}}"),
    ("Groq API key", "gsk_", f"{A}{{52}}"),
    ("xAI API key", "xai-", f"{A}{{60,}}"),
    ("Replicate token", "r8_", f"{A}{{37}}"),
    ("Perplexity API key", "pplx-", f"{A}{{48}}"),
    ("Pinecone API key", "pcsk_", "\\w{50,}"),
    ("LangSmith API key", "lsv2_pt_", f"{H}{{32}}_{H}{{10}}"),
    ("LangSmith API key", "lsv2_sk_", f"{H}{{32}}_{H}{{10}}"),
    ("Fireworks API key", "fw_", f"{A}{{20,}}"),
    *(("Vault token", p, f"{W}{{24,}}") for p in ("hvs.", "hvb.", "hvr.")),
    ("age secret key", "AGE-SECRET-KEY-1", f"{UP}{{58}}"),
    ("Adafruit IO key", "aio_", f"{A}{{28}}"),
    ("Airtable token", "pat", f"{A}{{14}}\\.{H}{{64}}"),
    ("Apify token", "apify_api_", f"{A}{{36}}"),
    ("Buildkite token", "bkua_", f"{H}{{40}}"),
    ("CircleCI token", "CCIPAT_", f"{A}{{22}}_{H}{{40}}"),
    ("Cloudflare origin CA key", "v1.0-", f"{H}{{24}}-{H}{{146}}"),
    ("Contentful token", "CFPAT-", f"{W}{{43}}"),
    ("Databricks token", "dapi", f"{H}{{32}}(?:-\\d)?"),
    ("Defined Networking key", "dnkey-", "[\\w=-]{26}-[\\w=-]{52}"),
    *(
        ("Doppler token", p, f"(?:\\w{{2,35}}\\.)?{A}{{40,44}}")
        for p in ("dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit.")
    ),
    ("Dropbox token", "sl.", f"{W}{{130,}}"),
    ("Duffel token", "duffel_test_", "[\\w=-]{43}"),
    ("Duffel token", "duffel_live_", "[\\w=-]{43}"),
    ("Dynatrace token", "dt0c01.", f"{UP}{{24}}\\.{UP}{{64}}"),
    ("EasyPost key", "EZAK", f"{A}{{54}}"),
    ("EasyPost key", "EZTK", f"{A}{{54}}"),
    ("Flutterwave secret key", "FLWSECK_TEST-", f"{HX}{{32}}-X"),
    ("Flutterwave secret key", "FLWSECK-", f"{HX}{{32}}-X"),
    ("Fly.io token", "fo1_", f"{W}{{43}}"),
    *(("Fly.io token", p, "[\\w+/=,-]{50,}") for p in ("fm1_", "fm2_")),
    ("Frame.io token", "fio-u-", "[\\w=-]{64}"),
    ("GoCardless token", "live_", "[\\w=-]{40}"),
    ("Mollie API key", "live_", f"{A}{{30}}"),
    ("Mollie API key", "test_", f"{A}{{30}}"),
    ("Grafana API key", "eyJrIjoi", f"{A}{{70,400}}={{0,2}}"),
    ("Grafana Cloud token", "glc_", f"{B64}{{32,400}}={{0,2}}"),
    ("Grafana service account token", "glsa_", f"{A}{{32}}_{HX}{{8}}"),
    ("Harness token", "pat.", f"{W}{{22}}\\.{LO}{{24}}\\.{LO}{{20}}"),
    ("Harness token", "sat.", f"{W}{{22}}\\.{LO}{{24}}\\.{LO}{{20}}"),
    ("Heroku API key", "HRKU-", f"{W}{{58,}}"),
    ("HubSpot token", "pat-na1-", UUID),
    ("HubSpot token", "pat-eu1-", UUID),
    ("Infracost API key", "ico-", f"{A}{{32}}"),
    ("Intra42 secret", "s-s4t2ud-", f"{H}{{64}}"),
    ("LaunchDarkly key", "api-", UUID),
    ("LaunchDarkly key", "sdk-", UUID),
    ("Mapbox secret token", "sk.eyJ", f"{W}+\\.{W}{{20,}}"),
    ("Netlify token", "nfp_", f"{A}{{36,}}"),
    ("New Relic key", "NRAK-", f"{UP}{{27}}"),
    ("New Relic key", "NRAA-", f"{HX}{{27}}"),
    ("New Relic key", "NRII-", f"{W}{{32}}"),
    ("New Relic key", "NRJS-", f"{H}{{19}}"),
    ("1Password service account token", "ops_eyJ", "[\\w+/=-]{100,}"),
    (
        "1Password secret key",
        "A3-",
        f"{UP}{{6}}-(?:{UP}{{11}}|{UP}{{6}}-{UP}{{5}})(?:-{UP}{{5}}){{3}}",
    ),
    ("Octopus Deploy API key", "API-", f"{UP}{{26}}"),
    ("OpenShift token", "sha256~", f"{W}{{43}}"),
    ("PlanetScale password", "pscale_pw_", "[\\w=.-]{32,64}"),
    ("PlanetScale token", "pscale_tkn_", "[\\w=.-]{32,64}"),
    ("PlanetScale OAuth token", "pscale_oauth_", "[\\w=.-]{32,64}"),
    ("Postman API key", "PMAK-", f"{HX}{{24}}-{HX}{{34}}"),
    ("PostHog personal API key", "phx_", f"{A}{{40,}}"),
    ("Prefect token", "pnu_", f"{A}{{36}}"),
    ("Pulumi token", "pul-", f"{H}{{40}}"),
    ("ReadMe API key", "rdme_", f"{LO}{{70}}"),
    ("Render API key", "rnd_", f"{A}{{32}}"),
    ("Resend API key", "re_", f"{A}{{8}}_{A}{{24}}"),
    ("Neon API key", "napi_", f"{LO}{{64}}"),
    *(("Vercel token", p, f"{A}{{24,}}") for p in ("vcp_", "vci_", "vca_", "vcr_", "vck_")),
    ("Scalingo token", "tk-us-", f"{W}{{48}}"),
    ("Sentry token", "sntrys_", "[\\w+/=-]{50,}"),
    ("Sentry token", "sntryu_", f"{H}{{64}}"),
    *(("Settlemint token", p, f"{A}{{16}}") for p in ("sm_pat_", "sm_aat_", "sm_sat_")),
    ("Shippo token", "shippo_live_", f"{H}{{40}}"),
    ("Shippo token", "shippo_test_", f"{H}{{40}}"),
    *(("SonarQube token", p, f"{H}{{40}}") for p in ("squ_", "sqp_", "sqa_")),
    ("Sourcegraph token", "sgp_", f"(?:{H}{{16}}_)?{H}{{40}}"),
    ("Supabase token", "sbp_", f"{H}{{40}}"),
    ("Supabase secret key", "sb_secret_", f"{W}{{31,}}"),
    *(
        ("Tailscale key", p, f"{A}{{10,}}-{A}{{20,}}")
        for p in ("tskey-auth-", "tskey-api-", "tskey-client-", "tskey-")
    ),
    ("Typeform token", "tfp_", "[\\w.=-]{59}"),
    ("Yandex API key", "AQVN", f"{W}{{35,38}}"),
    ("Yandex token", "t1.", "[\\w-]+={0,2}\\.[\\w-]{86}={0,2}"),
    ("TeamCity token", "eyJ0eXAiOiAiVENWMiJ9.", f"{W}{{36}}\\.{W}{{48}}"),
    ("Braintree access token", "access_token$production$", f"{LO}{{16}}\\${H}{{32}}"),
    ("Braintree access token", "access_token$sandbox$", f"{LO}{{16}}\\${H}{{32}}"),
    ("Razorpay key", "rzp_live_", f"{A}{{14}}"),
    ("Paddle API key", "pdl_live_apikey_", f"{A}{{20,}}"),
    ("Paddle API key", "pdl_sdbx_apikey_", f"{A}{{20,}}"),
    ("Plaid access token", "access-production-", UUID),
    ("Plaid access token", "access-sandbox-", UUID),
    ("Plaid access token", "access-development-", UUID),
    ("Salesforce access token", "00D", f"{A}{{12,15}}![\\w.-]{{80,}}"),
    ("Lob API key", "live_", f"{H}{{35}}"),
    ("Lob API key", "test_", f"{H}{{35}}"),
)

# Prefixes too common in ordinary words and names for the prefix alone to decide: the body
# must also look random (a digit in it, and not made of words).
WEAK_PREFIX_KINDS = frozenset(
    {
        "GoCardless token",
        "Mollie API key",
        "Lob API key",
        "LaunchDarkly key",
        "Airtable token",
        "Harness token",
        "Fireworks API key",
        "Resend API key",
        "Scaleway access key",
        "crates.io token",
        "NuGet API key",
        "ElevenLabs API key",
        "Dropbox token",
        "Twilio API key",
    }
)

# (kind, pattern, needles). Case-insensitive patterns say (?i:...); their needles are
# lower case (tested against the lower-cased text), the others' are exact.
END = r"(?![A-Za-z0-9_-])"  # a token ends where its alphabet ends (\\b fails after - or _)
FORMATS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "private key",
        # A header alone is words about a key; a key has a body (after optional PEM headers).
        r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----\s*(?:[A-Za-z-]+: [^\n]*\n\s*)*"
        r"[A-Za-z0-9+/=]{32,}",
        ("PRIVATE KEY",),
    ),
    (
        "PuTTY private key",
        r"PuTTY-User-Key-File-\d: [\w-]+\n(?:[^\n]*\n){0,8}?Private-Lines: \d+\n"
        r"[A-Za-z0-9+/=]{32,}",
        ("PuTTY-User-Key-File",),
    ),
    ("Kubernetes client key", r"client-key-data:\s*[A-Za-z0-9+/=]{40,}", ("client-key-data",)),
    (
        "AWS access key",
        r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b",
        ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
    ),
    (
        "AWS secret key",
        r"(?i:aws_?secret_?(?:access_?)?key)\s*[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9/+=]{40}",
        ("aws",),
    ),
    (
        "Slack webhook",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{20,}",
        ("hooks.slack.com",),
    ),
    ("Discord webhook", r"discord(?:app)?\.com/api/webhooks/\d+/[\w-]{20,}", ("discord",)),
    (
        "Microsoft Teams webhook",
        r"webhook\.office\.com/webhookb2/[0-9a-f-]{36}@[0-9a-f-]{36}/IncomingWebhook/[0-9a-f]{32}",
        ("webhook.office.com",),
    ),
    ("Zapier webhook", r"hooks\.zapier\.com/hooks/catch/\d+/[A-Za-z0-9]{6,}", ("hooks.zapier",)),
    ("Discord bot token", r"\b[MNO][A-Za-z\d_-]{23,27}\.[\w-]{6}\.[\w-]{27,40}" + END, (".",)),
    ("Telegram bot token", r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}" + END, (":AA",)),
    ("Firebase server key", r"\bAAAA[\w-]{7}:APA91b[\w-]{130,}", (":APA91b",)),
    ("Azure storage key", r"(?i:AccountKey)\s*=\s*[^;\s\"']{4,}", ("accountkey",)),
    ("Azure SAS token", r"[?&]sig=[A-Za-z0-9%/+]{30,}", ("sig=",)),
    ("Azure AD client secret", r"\b[\w~.]{3}\dQ~[\w~.-]{31,34}" + END, ("Q~",)),
    (
        "password in URL",
        r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:/@\"'<>]{0,128}:(?P<value>[^\s/@\"'<>]{1,128})"
        r"@[^\s/@]",
        ("://",),
    ),
    ("DSN with a key", r"\bhttps?://[0-9a-f]{32}(?::[0-9a-f]{32})?@[A-Za-z0-9.-]+", ("://",)),
    (
        "password in connection string",
        r"(?i:\b(?:password|pwd))\s*=\s*(?P<value>[^;\s\"']{3,})",
        ("password", "pwd"),
    ),
    ("Redis password", r"\brequirepass\s+(?P<value>[^\s\"']{6,})", ("requirepass",)),
    (
        "Docker registry auth",
        r"\"auth\"\s*:\s*\"(?P<value>[A-Za-z0-9+/]{12,}={0,2})\"",
        ('"auth"',),
    ),
    (
        # A 32-64 hex digit value right after words that name a credential: vendors whose
        # tokens have no prefix of their own are recognisable only by what is said around them.
        "token named in the text",
        r"(?i:\b(?:api[ _-]?key|auth[ _-]?token|access[ _-]?(?:key|token)|token|secret"
        r"|password)\b)[^\n]{0,24}?\b(?P<value>[0-9a-f]{32,64}|[0-9A-F]{32,64})\b",
        ("token", "key", "secret", "password"),
    ),
    (
        "JWT",
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        ("eyJ",),
    ),
    ("GCP service account", r"\"type\"\s*:\s*\"service_account\"", ("service_account",)),
    ("Terraform Cloud token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,}", ("atlasv1",)),
    ("Mailchimp API key", r"\b[0-9a-f]{32}-us\d{1,2}\b", ("-us",)),
    (
        "authorization header",
        r"(?i:authorization)\s*:\s*(?i:basic|bearer)\s+[A-Za-z0-9._~+/=-]{12,}",
        ("authorization",),
    ),
)
