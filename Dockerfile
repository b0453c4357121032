# One image for web, worker and beat.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1

WORKDIR /app
RUN useradd --create-home --uid 10001 deniable

COPY pyproject.toml README.md ./
COPY surveys ./surveys
COPY ldp ./ldp
RUN pip install .

COPY . .
# Static files are collected at build time with a throw-away key (never used to sign).
RUN DENIABLE_PRODUCTION=true ALLOWED_HOSTS=build \
    SECRET_KEY=collectstatic-only-key-0123456789-abcdefghijklmnopqrstuvwxyz \
    python manage.py collectstatic --noinput

# Beat keeps its schedule in var/ and workers write export files to var/exports
# (docker-compose.yml mounts the shared exports volume there; a new volume takes
# this directory's owner); the app user writes to both.
RUN mkdir -p var/exports && chown -R deniable:deniable var

USER deniable
EXPOSE 8000
CMD ["gunicorn", "--config", "gunicorn.conf.py", "surveys.wsgi"]
