/** A client route the dashboard does not have (the server answered index.html for it). */
import { Link } from 'react-router';
import { PageTitle } from '../components/PageTitle';

export function NotFoundPage({ what = 'page' }: { what?: 'page' | 'list' }) {
  return (
    <>
      <PageTitle>{what === 'list' ? 'List not found' : 'Page not found'}</PageTitle>
      <p>
        {what === 'list'
          ? 'This list does not exist, or it was deleted (finished lists are deleted after your plan’s retention).'
          : 'There is no page at this address.'}
      </p>
      <p>
        <Link to={what === 'list' ? '/lists' : '/'}>
          {what === 'list' ? 'Back to every list' : 'Back to the start'}
        </Link>
      </p>
    </>
  );
}
