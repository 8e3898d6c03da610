import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { AuthService } from './auth.service.js';
import { LoginDto, type LoginResponse } from './dto/login.dto.js';
import { LoginThrottlerGuard } from './login-throttler.guard.js';

/** The authentication component (INTERFACE.md), mounted at `AUTH_URL`. */
@Controller('auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  /**
   * `POST {auth_url}/auth/login` → 200 `{token}`; 400 bad body; 401 `Invalid credentials`;
   * 429 `Too many requests in this time frame`. Rate-limit headers on every answer (CONTRACT.md §4).
   */
  @Post('login')
  @HttpCode(200)
  @UseGuards(LoginThrottlerGuard)
  login(@Body() body: LoginDto): Promise<LoginResponse> {
    return this.auth.login(body);
  }
}
