-- Manager console (issue 7), managers and two-factor sign-in: the last TOTP time step a manager
-- signed in with, so an observed code cannot be replayed within its window.
ALTER TABLE "managers" ADD COLUMN "totp_last_step" bigint;
