/** Check a sending domain: SPF, DMARC, DKIM, mail hosts, MTA-STS, TLS-RPT, BIMI and blocklists. */
import { type FormEvent, useState } from 'react';
import { api } from '../api/client';
import { settle } from '../api/problem';
import { Field } from '../components/Field';
import { FormAlert } from '../components/FormAlert';
import { PageTitle } from '../components/PageTitle';
import { useApiForm } from '../components/use-form';
import { type DomainReport, DomainReportView } from '../deliverability/DomainReportView';

const FIELDS = ['domain', 'dkim_selectors'] as const;

/** Selectors as typed: separated by commas or spaces. */
function selectorsOf(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((each) => each.trim())
    .filter((each) => each !== '');
}

export function DeliverabilityPage() {
  const [domain, setDomain] = useState('');
  const [selectors, setSelectors] = useState('');
  const [report, setReport] = useState<DomainReport | null>(null);
  const [working, setWorking] = useState<string | null>(null);
  const { errors, setErrors, fail, clear, busy, setBusy, formRef } = useApiForm(FIELDS);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    if (domain.trim() === '') {
      setErrors({ form: null, fields: { domain: 'Enter the domain your mail is sent from.' } });
      return;
    }
    clear();
    setBusy(true);
    setWorking(domain.trim());
    const list = selectorsOf(selectors);
    const outcome = await settle(
      api.POST('/api/v1/domains/check', {
        body: { domain, ...(list.length > 0 && { dkim_selectors: list }) },
      }),
    );
    setBusy(false);
    setWorking(null);
    if (outcome.ok) setReport(outcome.data);
    else fail(outcome.problem);
  };

  return (
    <>
      <PageTitle>Deliverability</PageTitle>
      <p className="muted">
        How receivers see a domain you send from: its SPF, DMARC and DKIM records, its mail hosts, TLS
        policies and blocklist listings, with a fix for each problem. Each check counts as one verification.
      </p>
      <form ref={formRef} onSubmit={(event) => void submit(event)} noValidate className="inline-form">
        <FormAlert message={errors.form} />
        <Field label="Domain" name="domain" error={errors.fields.domain}>
          {(control) => (
            <input
              {...control}
              type="text"
              inputMode="url"
              autoComplete="off"
              spellCheck={false}
              placeholder="example.com"
              value={domain}
              onChange={(event) => setDomain(event.target.value)}
            />
          )}
        </Field>
        <Field
          label="DKIM selectors"
          name="dkim_selectors"
          error={errors.fields.dkim_selectors}
          hint="Optional, separated by commas: the s= of your mail's DKIM-Signature. Empty: common ones."
        >
          {(control) => (
            <input
              {...control}
              type="text"
              autoComplete="off"
              spellCheck={false}
              value={selectors}
              onChange={(event) => setSelectors(event.target.value)}
            />
          )}
        </Field>
        <button type="submit" className="button primary" aria-disabled={busy}>
          Check domain
        </button>
      </form>
      <p role="status" className="muted">
        {working === null ? '' : `Checking ${working}… connecting to its mail hosts can take a few seconds.`}
      </p>
      {report !== null && <DomainReportView report={report} />}
    </>
  );
}
