/** The dashboard: the signed-out screens, or the signed-in app with its pages. */
import { Navigate, Route, Routes } from 'react-router';
import { AccountPage } from '../pages/AccountPage';
import { AuditLogPage } from '../pages/AuditLogPage';
import { ConfirmPage } from '../pages/ConfirmPage';
import { DeliverabilityPage } from '../pages/DeliverabilityPage';
import { ForgotPasswordPage } from '../pages/ForgotPasswordPage';
import { IntegrationsPage } from '../pages/IntegrationsPage';
import { KeysPage } from '../pages/KeysPage';
import { ListPage } from '../pages/ListPage';
import { ListsPage } from '../pages/ListsPage';
import { NotFoundPage } from '../pages/NotFoundPage';
import { OverviewPage } from '../pages/OverviewPage';
import { ResetPasswordPage } from '../pages/ResetPasswordPage';
import { SignInPage } from '../pages/SignInPage';
import { SignUpPage } from '../pages/SignUpPage';
import { VerifyPage } from '../pages/VerifyPage';
import { useSession } from '../session/session';
import { Layout } from './Layout';
import { SignedOutLayout } from './SignedOutLayout';

export function App() {
  const { state, refresh } = useSession();
  switch (state.kind) {
    case 'loading':
      return (
        <SignedOutLayout>
          <p role="status">Loading…</p>
        </SignedOutLayout>
      );
    case 'unavailable':
      return (
        <SignedOutLayout>
          <h1>Mailvet is not answering</h1>
          <div role="alert" className="alert alert-error">
            {state.problem.message}
          </div>
          <button type="button" className="button primary" onClick={() => void refresh()}>
            Try again
          </button>
        </SignedOutLayout>
      );
    case 'signed-out':
      return (
        <SignedOutLayout>
          <Routes>
            <Route path="/signup" element={<SignUpPage />} />
            <Route path="/forgot-password" element={<ForgotPasswordPage />} />
            <Route path="/reset-password" element={<ResetPasswordPage />} />
            <Route path="/confirm" element={<ConfirmPage />} />
            {/* Any other address asks to sign in, then shows the page it named. */}
            <Route path="*" element={<SignInPage notice={state.notice} />} />
          </Routes>
        </SignedOutLayout>
      );
    case 'signed-in':
      return (
        <Layout>
          <Routes>
            <Route path="/" element={<OverviewPage />} />
            <Route path="/verify" element={<VerifyPage />} />
            <Route path="/lists" element={<ListsPage />} />
            <Route path="/lists/:id" element={<ListPage />} />
            <Route path="/keys" element={<KeysPage />} />
            <Route path="/integrations" element={<IntegrationsPage />} />
            <Route path="/deliverability" element={<DeliverabilityPage />} />
            <Route path="/account" element={<AccountPage />} />
            <Route path="/audit" element={<AuditLogPage />} />
            <Route path="/confirm" element={<ConfirmPage />} />
            <Route path="/reset-password" element={<ResetPasswordPage />} />
            <Route path="/signin" element={<Navigate to="/" replace />} />
            <Route path="/signup" element={<Navigate to="/" replace />} />
            <Route path="*" element={<NotFoundPage />} />
          </Routes>
        </Layout>
      );
  }
}
